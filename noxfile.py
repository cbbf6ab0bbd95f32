"""Tasks for the cuda-template repository: `nox -l` lists them."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["lint", "tests"]

ROOT = Path(__file__).parent
PYTHON = "3.11"
DOCS_HTML = ROOT / "docs" / "_build" / "html"


# The suite's tiers, by pytest marker (registered in pyproject.toml): each session runs the one
# before it and more. tests/test_tiers.py holds what each selects; docs/contributing.md says
# what runs where and how long each takes.
TIERS = {
    # Renders every variant and checks it statically: nothing is built or installed.
    "tests_quick": ["-m", "not slow and not full"],
    # The README's and CI's: also builds, installs and tests the defaults, every option and one
    # major (tests/conftest.py's BUILT_IN_TESTS).
    "tests": ["-m", "not full"],
    # Everything: every render built, every Python floor, every library alone, every sampled
    # version updated, the property tests at full size.
    "tests_full": ["--hypothesis-profile=full"],
}


# The quick and README tiers run on two pytest-xdist workers, which use both cores of the
# budget's machine: their tests render, build and read files, each CPU-bound in one process.
PARALLEL = ["-n", "2"]
ON_WORKERS = ("tests_quick", "tests")


def _pytest(session: nox.Session, tier: str) -> None:
    session.install("--group", "test")
    workers = PARALLEL if tier in ON_WORKERS else []
    # The slowest tests in every log: where to look when a tier nears its time budget.
    session.run("pytest", *TIERS[tier], *workers, "--durations=15", *session.posargs)


@nox.session(python=PYTHON)
def tests_quick(session: nox.Session) -> None:
    """Render every variant of the answer matrix and check it, building nothing (<= 5 min)."""
    _pytest(session, "tests_quick")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The quick tier, then build, install and test the defaults, all options, one major."""
    _pytest(session, "tests")


@nox.session(python=PYTHON)
def tests_full(session: nox.Session) -> None:
    """Every test: each render built, each floor, each sample, hypothesis at full size."""
    _pytest(session, "tests_full")


@nox.session(python=PYTHON)
def tests_gpu(session: nox.Session) -> None:
    """On an NVIDIA GPU: render `-- defaults` or `-- all-options`, run its tests_gpu and bench."""
    # CUDA_MAJOR picks the major; .github/workflows/gpu.yml runs one job per major and render.
    session.install("--group", "test")
    session.run("python", "tools/gpu_renders.py", "run", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Ruff and mypy --strict on this repository's Python and every render of the answer matrix."""
    session.install("--group", "lint")
    # template/ and tests/owned/ are Jinja: they are checked as they land in a project, with the
    # owned tests laid in, and with the typed packages each render's `nox -s typecheck` installs.
    # Every check runs, and the last line names those that failed (tools/lint_renders.py).
    # Outside .nox/, which ruff leaves out of every check.
    renders = Path(tempfile.mkdtemp(prefix="cuda-template-lint-"))
    try:
        session.run("python", "tools/lint_renders.py", "render", str(renders))
        session.install("-r", str(renders / "typing-requirements.txt"))
        session.run("python", "tools/lint_renders.py", "check", str(renders))
    finally:
        shutil.rmtree(renders, ignore_errors=True)


@nox.session(python=PYTHON)
def owned(session: nox.Session) -> None:
    """Build one render with tests/owned/ laid in and run those tests: `-- -k detection`."""
    # The render and install helpers of tests/conftest.py, which import pytest and hypothesis:
    # the owned group. uv builds and installs the render from its cache.
    session.install("--group", "owned")
    session.run("python", "tools/owned_tests.py", *session.posargs)


@nox.session(python=PYTHON)
def mutation(session: nox.Session) -> None:
    """Mutation-test the rendered gpu/, kernels/ and doctor/ with mutmut (`-- --quick` samples)."""
    session.install("--group", "mutation")
    session.run("python", "tools/mutation.py", *session.posargs)


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the template's documentation strictly into docs/_build/html (`-- serve` to preview)."""
    session.install("--group", "docs")
    # -W: warnings are errors; -n: so is a reference that does not resolve; --keep-going: report
    # them all at once; -E: read every page again, or a page that warned last time and has not
    # changed since would pass unread.
    strict = ["-W", "-n", "--keep-going", "-E"]
    session.run("sphinx-build", *strict, "-b", "html", "docs", str(DOCS_HTML))
    if "serve" in session.posargs:
        session.log("Serving the site at http://localhost:8000 (Ctrl-C stops)")
        session.run("python", "-m", "http.server", "8000", "--directory", str(DOCS_HTML))


@nox.session(python=PYTHON)
def docs_pages(session: nox.Session) -> None:
    """Regenerate docs/cuda-matrix.md and docs/troubleshooting.md from the template."""
    # Copier renders the troubleshooting page exactly as a project gets it.
    session.install("pyyaml>=6", "copier>=9.18")
    session.run("python", "tools/generate_docs.py")


@nox.session(python=PYTHON)
def example(session: nox.Session) -> None:
    """Render a project from this checkout for a look: `nox -s example -- DIR [key=value ...]`."""
    session.install("copier>=9.18")
    # The script refuses a folder that is neither new, empty nor a clean earlier example render
    # (a real project, the checkout or a folder inside it) and a misplaced answer, before Copier
    # writes anything.
    session.run(
        "python",
        "tools/render_example.py",
        *session.posargs,
        env={"COPIER_SETTINGS_PATH": os.devnull},
    )


@nox.session(python=PYTHON)
def bump_matrix(session: nox.Session) -> None:
    """Newest releases of every matrix and pins package vs. their ranges (`-- --write` applies)."""
    # copier: tools/generate_docs.py renders the troubleshooting page with it after --write.
    session.install("packaging>=24", "pyyaml>=6", "jinja2>=3.1", "copier>=9.18")
    session.run("python", "tools/bump_matrix.py", *session.posargs)
    if "--write" in session.posargs:
        # docs/cuda-matrix.md shows the ranges and the date: regenerate it with them.
        session.run("python", "tools/generate_docs.py")


@nox.session(python=PYTHON)
def release(session: nox.Session) -> None:
    """Check, run the full tests and tag vX.Y.Z: `nox -s release -- X.Y.Z` (never pushes)."""
    session.install("--group", "test")
    session.run("python", "tools/release.py", *session.posargs)


@nox.session(python=PYTHON)
def refresh_names(session: nox.Session) -> None:
    """Recompute includes/dependency-names.yml from what rendered projects install (needs PyPI)."""
    session.install("copier>=9.18", "pyyaml>=6", "packaging>=24", "uv")
    session.run("python", "tools/refresh_names.py", *session.posargs)
