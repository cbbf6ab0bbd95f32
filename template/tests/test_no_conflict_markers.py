# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""No tracked file holds a conflict that ``copier update`` (or a merge) left unresolved.

Copier writes a conflict into the file itself, between a line ``<<<<<<< before updating`` and
one ``>>>>>>> after updating``, and exits 0: a Python file then fails with a SyntaxError, but a
TOML, YAML or Markdown file may still parse and ship the wrong half. docs/updating.md says how
to resolve them.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Git's and Copier's markers: seven of the character at the start of a line, then a space or the
# line's end.
MARKER = re.compile(rb"^(<{7}|>{7})(?: |$)", re.MULTILINE)


def conflicted_lines(data: bytes) -> list[int]:
    """The numbers (from 1) of the lines of ``data`` that start a conflict or end one."""
    return [data.count(b"\n", 0, match.start()) + 1 for match in MARKER.finditer(data)]


def test_a_conflict_is_found_by_its_markers() -> None:
    text = b"a = 1\n<<<<<<< before updating\nb = 1\n=======\nb = 2\n>>>>>>> after updating\n"
    assert conflicted_lines(text) == [2, 6]
    assert conflicted_lines(b"x = '<<<<<<<'\n>>>>>>>>\n") == []


def test_no_tracked_file_holds_a_conflict_marker() -> None:
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout, or git is missing: {exc}")
    found = {
        name: lines
        for name in listed.decode().split("\0")
        if name and (ROOT / name).is_file()
        if (lines := conflicted_lines((ROOT / name).read_bytes()))
    }
    assert found == {}, (
        f"conflict markers (file: line numbers) {found}: keep the right half of each conflict and"
        " delete the marker lines (docs/updating.md)"
    )
