"""Your fixtures, shared by every test file: tests/conftest.py loads this file as a plugin.

``copier copy`` wrote it once; from now on it is yours, and ``copier update`` never touches it
(tests/conftest.py belongs to the template, which rewrites it). A fixture here is used like one
in conftest.py, by naming it as an argument.
"""

from __future__ import annotations
