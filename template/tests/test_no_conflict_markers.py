# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""No tracked file holds a conflict that ``copier update`` (or a merge) left unresolved.

Copier writes a conflict into the file itself and exits 0: a TOML, YAML or Markdown file may
still parse and ship the wrong half. The pre-commit hook ``check-merge-conflict`` refuses such a
commit where it is installed; CI runs no hooks, so this test is its check. docs/updating.md says
how to resolve them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

# Git's and Copier's markers: seven of the character at the start of a line, then a space or the
# line's end (the pattern noxfile.py's template_update session looks for).
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
