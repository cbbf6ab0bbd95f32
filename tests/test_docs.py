"""Docs that are generated or quoted from the template cannot drift from it."""

from __future__ import annotations

import re

import generate_docs
from conftest import REPO_ROOT


def test_generated_pages_are_current() -> None:
    for path, content in generate_docs.pages().items():
        assert path.read_text("utf-8") == content, f"{path.name} is stale: run nox -s docs_pages"


def test_matrix_page_shows_every_requirement_of_the_matrix() -> None:
    matrix = generate_docs.load_matrix()
    page = generate_docs.render_page(matrix)
    for entry in matrix["majors"].values():
        for reqs in entry["requirements"].values():
            for req in reqs:
                assert f"`{req}`" in page


def test_troubleshooting_covers_each_error_the_doctor_issue_names() -> None:
    page = (REPO_ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
    for error in (
        "cudaErrorInsufficientDriver",
        "cudaErrorNoDevice",
        "no kernel image is available",
        "unsupported PTX version",
        "NVVM, NVRTC or libdevice not found",
        "fork",
        "an illegal memory access was encountered",
        "CUDA_LAUNCH_BLOCKING=1",
        "compute-sanitizer",
        "Out of memory",
    ):
        assert error in page


def test_troubleshooting_names_only_findings_the_doctor_has() -> None:
    page = (REPO_ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
    findings = (
        REPO_ROOT / "template" / "src" / "{{ package_name }}" / "doctor" / "_findings.py.jinja"
    ).read_text("utf-8")
    finding_texts = re.findall(r"\*\*Finding\.\*\*(.*?)\*\*Fix\.\*\*", page, flags=re.DOTALL)
    codes = {c for text in finding_texts for c in re.findall(r"`([a-z]+(?:-[a-z]+)+)`", text)}
    assert len(codes) >= 6, f"the page names too few findings: {codes}"
    for code in codes:
        assert f'"{code}"' in findings, code


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
