"""Docs that are generated or quoted from the template cannot drift from it."""

from __future__ import annotations

import re

import matrix_page
from conftest import REPO_ROOT


def test_matrix_page_is_generated_from_the_current_matrix() -> None:
    page = (REPO_ROOT / "docs" / "cuda-matrix.md").read_text("utf-8")
    assert page == matrix_page.render_page(matrix_page.load_matrix())


def test_matrix_page_shows_every_requirement_of_the_matrix() -> None:
    matrix = matrix_page.load_matrix()
    page = matrix_page.render_page(matrix)
    for entry in matrix["majors"].values():
        for reqs in entry["requirements"].values():
            for req in reqs:
                assert f"`{req}`" in page


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    ci = (REPO_ROOT / ".ci" / "run").read_text("utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = re.findall(r"^(uvx [^#\n]+?)\s*(?:#.*)?$", quick_start, flags=re.MULTILINE)
    assert len(commands) == 2
    assert commands[1] == "uvx nox -s tests"
    assert re.search(r"^uvx nox -s tests$", ci, flags=re.MULTILINE)


def test_every_nox_session_has_a_docstring() -> None:
    source = (REPO_ROOT / "noxfile.py").read_text("utf-8")
    sessions = re.findall(r"@nox\.session[^\n]*\ndef (\w+)\(session[^\n]*\n\s+\"\"\"", source)
    declared = re.findall(r"@nox\.session[^\n]*\ndef (\w+)", source)
    assert sessions == declared
    assert {"tests", "lint", "example"} <= set(declared)
