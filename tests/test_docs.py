"""Docs that are generated or quoted from the template cannot drift from it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import generate_docs
import pytest
import yaml
from conftest import REPO_ROOT, Built, Render, build_and_install, run


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


DOCTOR_CHECKS = REPO_ROOT / "template" / "src" / "{{ package_name }}" / "doctor" / "_checks.py"


def _documented_codes() -> set[str]:
    page = (REPO_ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
    finding_texts = re.findall(r"\*\*Finding\.\*\*(.*?)\*\*Fix\.\*\*", page, flags=re.DOTALL)
    return {c for text in finding_texts for c in re.findall(r"`([a-z]+(?:-[a-z]+)+)`", text)}


def test_troubleshooting_names_only_findings_the_doctor_has() -> None:
    checks = DOCTOR_CHECKS.read_text("utf-8")
    codes = _documented_codes()
    assert len(codes) >= 6, f"the page names too few findings: {codes}"
    for code in codes:
        assert f'"{code}"' in checks, code


def test_troubleshooting_documents_every_finding_the_doctor_has() -> None:
    # Each check declares `code = "..."`; a crashing check is reported as "check-failed".
    checks = DOCTOR_CHECKS.read_text("utf-8")
    codes = set(re.findall(r'^    code = "([a-z-]+)"$', checks, flags=re.MULTILINE))
    assert len(codes) >= 9, f"too few checks found: {codes}"
    assert codes | {"check-failed"} <= _documented_codes()


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


def _nav_pages(nav: object) -> set[str]:
    """Every page file named anywhere in an mkdocs nav."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, list):
        return {page for item in nav for page in _nav_pages(item)}
    if isinstance(nav, dict):
        return {page for value in nav.values() for page in _nav_pages(value)}
    return set()


def test_every_docs_page_is_reachable_from_the_navigation() -> None:
    config = yaml.safe_load((REPO_ROOT / "mkdocs.yml").read_text("utf-8"))
    pages = {path.name for path in (REPO_ROOT / "docs").glob("*.md")}
    assert _nav_pages(config["nav"]) == pages


def test_template_site_builds_strictly(tmp_path: Path) -> None:
    run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=REPO_ROOT,
        env={"NO_MKDOCS_2_WARNING": "1"},
    )
    for page in ("getting-started", "optional-dep-pattern", "troubleshooting", "cuda-matrix"):
        assert (tmp_path / page / "index.html").is_file()


SKIP_MARK = re.compile(r"<!-- not executed: [^>]+ -->\s*$")


def python_samples(markdown: str) -> list[str]:
    """The ```python blocks of a page, except those right after `<!-- not executed: why -->`."""
    samples = []
    for match in re.finditer(r"^```python\n(.*?)^```", markdown, flags=re.MULTILINE | re.DOTALL):
        before = markdown[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if not SKIP_MARK.match(before):
            samples.append(match.group(1))
    return samples


def test_skipped_samples_say_why() -> None:
    for page in (REPO_ROOT / "docs").glob("*.md"):
        for mark in re.findall(r"<!-- not executed[^>]*-->", page.read_text("utf-8")):
            assert SKIP_MARK.match(mark), f"{page.name}: {mark} gives no reason"


@pytest.fixture(scope="module")
def myproj(render: Render) -> Built:
    """The example project the docs speak of: `myproj`, default answers, docs on."""
    answers = {"project_name": "myproj", "docs": "mkdocs"}
    return build_and_install(render(answers, name="myproj"), answers)


def sample_pages(project: Path) -> list[Path]:
    """Pages whose Python samples must run: the template's docs and the rendered project's."""
    return [
        *sorted((REPO_ROOT / "docs").glob("*.md")),
        project / "README.md",
        *sorted((project / "docs").glob("*.md")),
    ]


@pytest.mark.slow
def test_python_samples_in_the_docs_run(myproj: Built, tmp_path: Path) -> None:
    ran = 0
    for page in sample_pages(myproj.project):
        samples = python_samples(page.read_text("utf-8"))
        if not samples:
            continue
        script = tmp_path / f"{page.parent.name}-{page.stem}.py"
        script.write_text("\n\n".join(samples), "utf-8")
        run([str(myproj.venv_python), str(script)], cwd=tmp_path, env={"FORCE_CPU": "1"})
        ran += len(samples)
    assert ran >= 6


def test_every_generated_docs_page_is_in_the_generated_navigation(render: Render) -> None:
    project = render({"docs": "mkdocs"}, name="docs-nav")
    config = yaml.safe_load((project / "mkdocs.yml").read_text("utf-8"))
    pages = {path.name for path in (project / "docs").glob("*.md")}
    assert _nav_pages(config["nav"]) == pages
    assert {"index.md", "gpu.md", "troubleshooting.md", "api.md"} <= pages
