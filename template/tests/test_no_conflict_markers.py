# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""No tracked file holds a conflict that ``copier update`` (or a merge) left unresolved.

Copier writes conflicts into the files and exits 0: a TOML, YAML or Markdown file may still parse
and ship the wrong half. CI runs no pre-commit hooks: this test, not ``check-merge-conflict``, is
its check.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

# Git's and Copier's markers: seven of the character at the start of a line, then a space or the
# line's end, as `copier update` writes them.
GREP = ["git", "grep", "-n", "-I", "-E", "^(<<<<<<<|>>>>>>>)( |$)"]


def test_no_tracked_file_holds_a_conflict_marker() -> None:
    root = Path(__file__).resolve().parents[1]
    try:
        found = subprocess.run(
            GREP, cwd=root, capture_output=True, text=True, errors="replace", check=False
        )
    except OSError as exc:
        pytest.skip(f"git is missing: {exc}")
    if found.returncode > 1:  # 1: no match
        pytest.skip(f"not a git checkout: {found.stderr.strip()}")
    assert not found.stdout, (
        f"conflict markers (file:line:text):\n{found.stdout}keep the right half of each conflict"
        " and delete the marker lines (docs/updating.md)"
    )
