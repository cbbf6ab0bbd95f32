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
# default answers, and every option on, the compiled extension included, as issue 48 counts
# them. Its goal is 4,500 and 11,000, met by depth moving behind answers and thin layers over
# the libraries; it is not met yet. The ceilings below are the figures measured as the work
# lands: they only come down.
BUDGETS: dict[str, tuple[dict[str, Any], int]] = {
    "defaults": ({}, 5_353),
    "all-options": ({**ALL_OPTIONS, "extension": "cuda-cpp"}, 12_117),
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
