"""Every line a render writes is a line its user must read and keep: the renders stay in budget.

Counted as the lean-default issue counted them: every file of the render, blank lines included.
The budgets are deterministic (a render is the same text each time), so they are tests; the
figures are printed for ``pytest -s``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import ALL_OPTIONS, REPO_ROOT, Render

# The one statement of the budgets, in lines: docs/contributing.md quotes this block. The
# default answers, and every option on (the compiled extension, a choice, left off). The goal
# is 7,000 and 11,000 (issue 38), met by moving code out of the render or dropping it. It is
# not met: the figures below are this release's measured 9,377 and 12,987 lines with a little
# headroom (the ceilings set last release were 9,600 and 13,200). This release's new files (each
# example's own test and benchmark files, the CuPy short path, the thread-safe compile caches)
# were paid for by dropping: the public/private twin modules, what served Python 3.10 alone, test
# settings and fixtures written more than once, a file per large-array test and per fake-GPU test
# of the shared kernels, and docs that retold another page. They hold the line until the code
# moves.
BUDGETS: dict[str, tuple[dict[str, Any], int]] = {
    "defaults": ({}, 9_390),
    "all-options": (ALL_OPTIONS, 13_000),
}


def lines_of(project: Path) -> tuple[int, int]:
    """Files and lines of every file of the render."""
    files = [path for path in project.rglob("*") if path.is_file()]
    return len(files), sum(len(path.read_bytes().splitlines()) for path in files)


@pytest.mark.parametrize("name", sorted(BUDGETS))
def test_the_render_stays_within_its_line_budget(render: Render, name: str) -> None:
    answers, budget = BUDGETS[name]
    files, lines = lines_of(render(answers, name=f"size-{name}"))
    print(f"{name}: {files} files, {lines:,} lines (budget {budget:,})")
    assert lines <= budget, f"the {name} render is {lines:,} lines, over its {budget:,}"


def test_the_contributing_guide_quotes_the_budgets_and_retypes_none() -> None:
    guide = (REPO_ROOT / "docs" / "contributing.md").read_text("utf-8")
    include = "```{literalinclude} ../tests/test_render_size.py\n:language: python\n"
    assert include + ":start-at: 'BUDGETS: '\n:end-before: def lines_of\n```" in guide
    # A figure typed in a page goes stale the day a budget moves.
    pages = [*sorted((REPO_ROOT / "docs").glob("*.md")), REPO_ROOT / "README.md"]
    for _, budget in BUDGETS.values():
        spellings = {f"{budget:,}", f"{budget:_}", str(budget)}
        assert [p.name for p in pages if any(s in p.read_text("utf-8") for s in spellings)] == []
