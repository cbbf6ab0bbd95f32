"""The line between the template's files and the user's, in every render.

Each code file that ``copier update`` maintains starts with one marker line saying so and where
the user's code goes instead (docs/extending.md); the files a user edits never start with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import OWNED_MARKER, RENDER_MATRIX, Render

MARKER_LINES = {
    ".py": f"# {OWNED_MARKER}. Add your code in new files: see docs/extending.md.",
    ".cu": f"// {OWNED_MARKER}. Add your code in new files: see docs/extending.md.",
    ".cuh": f"// {OWNED_MARKER}. Add your code in new files: see docs/extending.md.",
}
# The template's code, as globs in a render: the GPU module, the doctor, the kernel machinery
# and its examples (a user copies an example rather than edit it), the scale-out module, and
# every test, test helper and benchmark the template ships (the user's are new files).
OWNED = [
    "src/*/gpu/**/*",
    "src/*/doctor/**/*",
    "src/*/kernels/**/*",
    "src/*/scale/**/*",
    "tests/*.py",
    "benchmarks/*.py",
    "tools/*.py",
]
# What the user edits: the template renders them once, and `copier update` merges into them.
USER_OWNED = [
    "pyproject.toml",
    "noxfile.py",
    "README.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
    "docs/index.md",
    "docs/conf.py",
    "docs/extending.md",
    "src/*/__init__.py",
    "tests/project_fixtures.py",  # written once (`_skip_if_exists`), the user's from then on
    "docs/guide/*",  # the user's pages; the first written once (`_skip_if_exists`)
]
RENDERS = ["defaults", "no-libraries", "all-majors"]


def first_line(path: Path) -> str:
    """The first line of a file, or its second after a shebang."""
    lines = path.read_text("utf-8").splitlines() or [""]
    return lines[1] if lines[0].startswith("#!") and len(lines) > 1 else lines[0]


def owned_code(project: Path) -> set[Path]:
    users = {path for pattern in USER_OWNED for path in project.glob(pattern)}
    return {
        path
        for pattern in OWNED
        for path in project.glob(pattern)
        if path.is_file() and path.suffix in MARKER_LINES and path not in users
    }


@pytest.fixture(scope="module", params=RENDERS)
def project(request: pytest.FixtureRequest, render: Render) -> Path:
    return render(RENDER_MATRIX[request.param], name=f"boundary-{request.param}")


def test_every_template_owned_code_file_starts_with_the_marker(project: Path) -> None:
    files = owned_code(project)
    assert len(files) >= 10, "the globs find too few files: they no longer match the render"
    unmarked = sorted(
        str(path.relative_to(project))
        for path in files
        if first_line(path) != MARKER_LINES[path.suffix]
    )
    assert unmarked == []


def test_no_file_outside_the_templates_code_starts_with_the_marker(project: Path) -> None:
    owned = owned_code(project)
    marked = sorted(
        str(path.relative_to(project))
        for path in project.rglob("*")
        if path.is_file() and path not in owned and OWNED_MARKER in first_line(path)
    )
    assert marked == []


def test_the_files_a_user_edits_exist_and_carry_no_marker(project: Path) -> None:
    found = [path for pattern in USER_OWNED for path in project.glob(pattern)]
    assert {
        "pyproject.toml",
        "noxfile.py",
        "README.md",
        "CONTRIBUTING.md",
        "project_fixtures.py",
    } <= {path.name for path in found}
    assert [str(path) for path in found if OWNED_MARKER in first_line(path)] == []


def test_the_marker_line_fits_the_lint_limit() -> None:
    assert max(len(line) for line in MARKER_LINES.values()) <= 100
