"""Docs that are generated or quoted from the template cannot drift from it."""

from __future__ import annotations

import filecmp
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import generate_docs
import pytest
from conftest import (
    ALL_LIBRARIES,
    ALL_OPTIONS,
    MAJORS,
    REPO_ROOT,
    Built,
    Render,
    build_and_install,
    run,
)
from packaging.requirements import Requirement
from packaging.version import Version
from template_data import load_computed, python_floors, python_support, questions

PINS: dict[str, Any] = load_computed("pins")
MATRIX: dict[str, Any] = load_computed("cuda_matrix")
# -W: a warning fails the build; -n (nitpicky): so does a reference that does not resolve.
STRICT_BUILD = ["-m", "sphinx", "-W", "-n", "--keep-going", "-q", "-b", "html"]


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
        "Out of memory",
        "cudaErrorUnknown",  # 999, as after a laptop's suspend
    ):
        assert error in page


def test_the_kernels_page_says_how_to_find_a_kernels_illegal_memory_access() -> None:
    # A kernel's bug, not the environment's: the template's kernels page, which projects link to.
    page = (REPO_ROOT / "docs" / "kernels.md").read_text("utf-8")
    section = page.split('## When a kernel faults: "an illegal memory access', 1)[1]
    for advice in ("CUDA_LAUNCH_BLOCKING=1", "compute-sanitizer", "NUMBA_ENABLE_CUDASIM=1"):
        assert advice in section.split("\n## ", 1)[0]
    troubleshooting = (REPO_ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
    assert "(an illegal memory access) is no environment failure" in troubleshooting


def test_troubleshooting_says_how_to_run_with_a_read_only_root() -> None:
    page = (REPO_ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
    section = page.split("## A read-only root", 1)[1].split("\n## ", 1)[0]
    for advice in ("NUMBA_CACHE_DIR", "CUPY_CACHE_DIR", "CUPY_CACHE_IN_MEMORY=1", "--tmpfs /tmp"):
        assert advice in section
    assert "kernels.disk_cache()" in section  # for the user's own cache=True kernels


DOCTOR = REPO_ROOT / "template" / "src" / "{{ package_name }}" / "doctor"
# The modules that define the doctor's checks (the compiled extension's is an option's own).
DOCTOR_CHECKS = (DOCTOR / "__init__.py.jinja", DOCTOR / "_extension.py")


def _documented_codes() -> set[str]:
    # The first column of the findings tables: the doctor's own finding carries its fix. The
    # compiled extension's findings are on its own page, which only renders with it have.
    pages = (
        REPO_ROOT / "docs" / "troubleshooting.md",
        REPO_ROOT / "template" / "docs" / "compiled-extension.md.jinja",
    )
    text = "".join(page.read_text("utf-8") for page in pages)
    return set(re.findall(r"^\| `([a-z]+(?:-[a-z]+)+)` \|", text, flags=re.MULTILINE))


def test_only_a_render_with_the_extension_documents_its_findings(render: Render) -> None:
    codes = ("extension-not-loaded", "extension-no-kernel-image")
    plain = render({}, name="docs-no-extension")
    pages = "".join(page.read_text("utf-8") for page in (plain / "docs").glob("*.md"))
    assert [code for code in codes if code in pages] == []
    with_it = render({"extension": "cuda-cpp"}, name="docs-extension")
    page = (with_it / "docs" / "compiled-extension.md").read_text("utf-8")
    assert [code for code in codes if f"| `{code}` |" not in page] == []


def test_rendered_pages_lead_into_no_private_module(render: Render) -> None:
    # A name under a module starting with `_` (`gpu._multiprocessing.fork_hazard`) may change in
    # any update: a page names the public way in.
    project = render({**ALL_OPTIONS, "extension": "cuda-cpp"}, name="docs-all-options")
    private = re.compile(r"\b(?:gpu|kernels|doctor|scale)\._\w+\.\w+")
    pages = [project / "README.md", *sorted((project / "docs").glob("*.md"))]
    found = {page.name: private.findall(page.read_text("utf-8")) for page in pages}
    assert {name: names for name, names in found.items() if names} == {}


def test_troubleshooting_names_only_findings_the_doctor_has() -> None:
    checks = "".join(path.read_text("utf-8") for path in DOCTOR_CHECKS)
    codes = _documented_codes()
    assert len(codes) >= 6, f"the page names too few findings: {codes}"
    for code in codes:
        assert f'"{code}"' in checks, code


def test_troubleshooting_documents_every_finding_the_doctor_has() -> None:
    # Each check makes its `Finding("code", ...)`.
    checks = "".join(path.read_text("utf-8") for path in DOCTOR_CHECKS)
    codes = set(re.findall(r'Finding\(\s*"([a-z-]+)",', checks))
    assert len(codes) >= 9, f"too few checks found: {codes}"
    assert codes <= _documented_codes()


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    ci = (REPO_ROOT / ".ci" / "run").read_text("utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("##", 1)[0]
    commands = re.findall(r"^(uvx [^#\n]+?)\s*(?:#.*)?$", quick_start, flags=re.MULTILINE)
    assert len(commands) == 2
    assert commands[1] == "uvx nox -s tests"
    assert re.search(r"^uvx nox -s tests$", ci, flags=re.MULTILINE)


def test_readme_questions_table_lists_every_question_in_copiers_order() -> None:
    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    rows = re.findall(r"^\| (`[^|]+`) \|", readme, flags=re.MULTILINE)
    # A row may name several questions that share one line ("`description`, `author_name`").
    listed = [name for row in rows for name in re.findall(r"`([a-z_]+)`", row)]
    assert listed == list(questions())


def test_every_nox_session_has_a_docstring() -> None:
    source = (REPO_ROOT / "noxfile.py").read_text("utf-8")
    sessions = re.findall(r"@nox\.session[^\n]*\ndef (\w+)\(session[^\n]*\n\s+\"\"\"", source)
    declared = re.findall(r"@nox\.session[^\n]*\ndef (\w+)", source)
    assert sessions == declared
    assert {"tests", "lint", "example"} <= set(declared)


def toctree_entries(markdown: str) -> set[str]:
    """The documents named by the MyST ``{toctree}`` blocks of a page (options left out)."""
    entries = set()
    blocks = re.findall(r"^```\{toctree\}\n(.*?)^```", markdown, flags=re.MULTILINE | re.DOTALL)
    for block in blocks:
        for line in block.splitlines():
            line = line.strip()
            if not line or line.startswith(":"):
                continue
            titled = re.fullmatch(r".*<(.+)>", line)  # "Title <page>"
            entries.add((titled.group(1) if titled else line).removesuffix(".md"))
    return entries


def test_toctree_reader_sees_entries_and_skips_options() -> None:
    page = "# T\n\n```{toctree}\n:caption: Guides\n:hidden:\n\nfirst\nSecond <second.md>\n```\n"
    assert toctree_entries(page) == {"first", "second"}


def test_every_docs_page_is_reachable_from_the_navigation() -> None:
    pages = {path.stem for path in (REPO_ROOT / "docs").glob("*.md")}
    index = (REPO_ROOT / "docs" / "index.md").read_text("utf-8")
    assert toctree_entries(index) | {"index"} == pages


def test_template_site_builds_strictly(tmp_path: Path) -> None:
    run([sys.executable, *STRICT_BUILD, "docs", str(tmp_path)], cwd=REPO_ROOT)
    for page in ("getting-started", "optional-dep-pattern", "troubleshooting", "cuda-matrix"):
        assert (tmp_path / f"{page}.html").is_file()


def test_template_site_takes_the_generated_projects_docs_pins() -> None:
    # One place for the ranges: the template's own site uses the projects' pins (less numpydoc,
    # which only an API page needs).
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text("utf-8"))
    own = pyproject["dependency-groups"]["docs"]
    assert own
    assert set(own) <= set(PINS["docs"]), "copy the ranges of pins.docs (includes/pins.yml)"


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
    answers = {"project_name": "myproj", "docs": "sphinx"}
    return build_and_install(render(answers, name="myproj"), answers)


def sample_pages(project: Path) -> list[Path]:
    """Pages whose Python samples must run: the template's docs and the rendered project's."""
    # The guides' blocks are files, not samples: tests/test_guide.py writes and tests them.
    return [
        *sorted(p for p in (REPO_ROOT / "docs").glob("*.md") if p.name != "guide.md"),
        project / "README.md",
        *sorted(p for p in (project / "docs").glob("*.md") if p.name != "extending.md"),
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
    project = render({"docs": "sphinx"}, name="docs-nav")
    pages = {path.stem for path in (project / "docs").glob("*.md")}
    index = (project / "docs" / "index.md").read_text("utf-8")
    # The user's pages are found by a glob over docs/guide/, which starts with one page.
    assert toctree_entries(index) | {"index"} == pages | {"guide/*"}
    assert {"index", "gpu", "troubleshooting", "api"} <= pages
    assert [path.name for path in (project / "docs" / "guide").iterdir()] == ["usage.md"]


def public_modules(project: Path) -> set[str]:
    """Dotted names of a render's public modules: no part of the path starts with ``_``."""
    modules = set()
    for path in (project / "src").rglob("*.py"):
        parts = path.relative_to(project / "src").with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not any(part.startswith("_") for part in parts):
            modules.add(".".join(parts))
    return modules


def test_api_page_generates_a_page_for_the_package_and_each_public_module(render: Render) -> None:
    # The page names the package alone; autosummary's :recursive: finds every public module,
    # the user's new ones included (the docs builds below check the pages it writes).
    project = render({"docs": "sphinx"}, name="docs-api")
    page = (project / "docs" / "api.md").read_text("utf-8")
    block = re.search(r"^\.\. autosummary::\n((?:   .*\n|\n)*)", page, flags=re.MULTILINE)
    assert block, page
    assert ":recursive:" in block.group(1)
    assert block.group(1).split()[-1] == "my_gpu_project"
    template = project / "docs" / "_templates" / "autosummary" / "module.rst"
    assert ":members:" in template.read_text("utf-8")


def generated_api_pages(html: Path) -> set[str]:
    """The modules that a built site has an API page for."""
    return {path.stem for path in (html / "generated").glob("*.html")}


def test_retired_mkdocs_answer_renders_the_sphinx_site(render: Render) -> None:
    # Projects rendered with `docs: mkdocs` keep that answer through `copier update`: it must
    # stay a valid choice and render exactly what `sphinx` does, mkdocs.yml gone.
    assert "mkdocs" in questions()["docs"]["choices"].values()
    retired = render({"docs": "mkdocs"}, name="docs-mkdocs")
    current = render({"docs": "sphinx"}, name="docs-sphinx")
    files = {
        p.relative_to(current).as_posix()
        for p in current.rglob("*")
        if p.is_file() and p.name != ".copier-answers.yml"
    }
    assert not (retired / "mkdocs.yml").exists()
    assert (retired / "docs" / "conf.py").is_file()
    _, mismatch, errors = filecmp.cmpfiles(retired, current, sorted(files), shallow=False)
    assert (mismatch, errors) == ([], [])


@pytest.mark.full  # the docs floors on the oldest Python: the full tier's floors
def test_generated_site_builds_strictly_with_the_lowest_allowed_releases(
    render: Render, tmp_path: Path
) -> None:
    # The docs floors on the oldest Python a project may support, with every library that
    # Python allows, so that each kernel module's page is built.
    oldest = python_support().choices[0]
    needs = python_floors(MATRIX, str(MAJORS[-1]))
    libraries = [lib for lib in ALL_LIBRARIES if Version(needs[lib]) <= Version(oldest)]
    answers = {"python_min": oldest, "gpu_libraries": libraries, "docs": "sphinx"}
    project = render(answers, name="docs-floor")
    venv = tmp_path / "venv"
    python = venv / "bin" / "python"
    run(["uv", "venv", "--quiet", "--python", oldest, str(venv)], cwd=project)
    install = ["uv", "pip", "install", "--quiet", "--python", str(python)]
    run([*install, "--resolution", "lowest-direct", "-e", ".", "--group", "docs"], cwd=project)
    floors = {
        (req := Requirement(pin)).name: Version(next(iter(req.specifier)).version)
        for pin in PINS["docs"]
    }
    show = "import importlib.metadata as m, sys; print(*(m.version(n) for n in sys.argv[1:]))"
    installed = run([str(python), "-c", show, *floors], cwd=project).split()
    assert dict(zip(floors, map(Version, installed), strict=True)) == floors
    run([str(python), *STRICT_BUILD, "docs", str(tmp_path / "html")], cwd=project)
    assert generated_api_pages(tmp_path / "html") == public_modules(project)
