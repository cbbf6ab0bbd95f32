"""Fixtures that render the template from the working tree and build what it renders.

Every render goes through Copier's Python API with ``unsafe=False``: a template that needed
``--trust`` would fail here first.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import runpy
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import settings
from template_data import (
    copier_documents,
    cuda_majors,
    example_choices,
    library_choices,
    python_support,
    questions,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
WORKING_TREE_TAG = "v0.0.0"
# The exhaustive tests of the code the template maintains (the GPU module, the doctor, the kernel
# machinery, the fakes). They prove the template, so they stay out of a user's project: this
# suite lays them into template/tests/ of a snapshot and renders them beside each project's own
# tests, with the same answers and the same `_exclude` rules.
OWNED_TESTS = Path(__file__).resolve().parent / "owned"
# The first line of every file a render's template maintains carries this (docs/extending.md).
OWNED_MARKER = "Maintained by cuda-template (copier update)"


@dataclass(frozen=True)
class Release:
    """A released version of the template and its commit."""

    version: str
    commit: str


# The newest release, by commit: tags do not travel to CI's clones. tests/test_previous_version.py
# compares renders with it and tests/test_update_history.py updates projects from it; move it
# forward when a release is tagged (docs/contributing.md, "Release").
LAST_RELEASE = Release("1.0.0", "44bbbffffd5d6acf2ebd4f8c7e66371d7672dfb5")

# Not this suite's tests: they import a rendered package and run inside a render.
collect_ignore = ["owned", "user_code"]

# The suite's tiers are pytest markers (pyproject.toml registers them, noxfile.py's TIERS selects
# by them): `slow` builds or installs a render and runs from `nox -s tests` on; `full` runs in
# `nox -s tests_full` alone. tests/test_tiers.py fails for a test that builds and carries neither.

# Property tests at two sizes: hypothesis draws 10 examples in the quick and the README's tiers
# and 100 in `nox -s tests_full` (`--hypothesis-profile=full`); the `@example`s run in every
# tier. On CI each run draws the same examples (a red build must be reproducible); locally each
# run explores new ones.
_ON_CI = bool(os.environ.get("CI"))
settings.register_profile("tests", max_examples=10, derandomize=_ON_CI)
settings.register_profile("full", max_examples=100, derandomize=_ON_CI)
settings.load_profile("tests")

# Option lists and majors are read from copier.yml and the matrix, never typed here.
ALL_LIBRARIES = list(library_choices())
ALL_EXAMPLES = example_choices()
MAJORS = cuda_majors()
OLDEST_MAJOR, NEWEST_MAJOR = MAJORS[0], MAJORS[-1]
# The oldest python_min offered (includes/python-releases.yml and the matrix's python_range).
OLDEST_PYTHON = python_support().choices[0]

# Every option on that a render can hold with the default CI and docs: every library and worked
# example, the Dask scale-out, the dev container, on Python 3.12 (a floor every library allows).
# The compiled extension, a choice, is added where a test wants it.
ALL_OPTIONS: dict[str, Any] = {
    "gpu_libraries": ALL_LIBRARIES,
    "examples": ALL_EXAMPLES,
    "python_min": "3.12",
    "dask": True,
    "devcontainer": True,
    "benchmarks": True,
    "deep_checks": True,
    "template_updates": True,
    "multi_gpu": True,
}

# The render matrix: each entry names the answers it sets; the rest are defaults.
RENDER_MATRIX: dict[str, dict[str, Any]] = {
    # Every major of the matrix, one extra each.
    "defaults": {},
    # One major, the oldest, with the default libraries and one worked example: the reductions
    # without the stencil, on the oldest Python floor offered (the default is SPEC 0's, newer), so
    # that `nox -s tests` builds on that floor too.
    f"cuda{OLDEST_MAJOR}": {
        "cuda_majors": [OLDEST_MAJOR],
        "license": "BSD-3-Clause",
        "examples": ["reductions"],
        "python_min": OLDEST_PYTHON,
        "benchmarks": True,
        "deep_checks": True,
    },
    "no-libraries": {
        "gpu_libraries": [],
        "docker": False,
        "ci": "none",
        "docs": "none",
        "python_min": OLDEST_PYTHON,
    },
    # Every library on the oldest major alone, with GitLab and Apache-2.0; and on every major
    # together, with the Dask scale-out option.
    f"all-cuda{OLDEST_MAJOR}": {
        "cuda_majors": [OLDEST_MAJOR],
        "gpu_libraries": ALL_LIBRARIES,
        "examples": ALL_EXAMPLES,
        "ci": "gitlab",
        "license": "Apache-2.0",
        "python_min": "3.12",
        "benchmarks": True,
        "deep_checks": True,
    },
    "all-majors": {
        "cuda_majors": MAJORS,
        "gpu_libraries": ALL_LIBRARIES,
        "examples": ALL_EXAMPLES,
        "python_min": "3.13",
        "dask": True,
        "benchmarks": True,
        "deep_checks": True,
        "multi_gpu": True,
    },
    # No CuPy: the gpu marker asks the driver, and conftest imports differ; the stencil runs on
    # Numba and the CUDA C routes alone.
    "no-cupy": {
        "gpu_libraries": [lib for lib in ALL_LIBRARIES if lib not in {"cupy", "jax"}],
        "examples": ["stencil"],
        "docs": "none",
    },
}


def copier_settings() -> dict[str, Any]:
    """Every top-level key of copier.yml: questions and computed values (includes left out)."""
    return {key: spec for document in copier_documents() for key, spec in document.items()}


def copier_questions() -> dict[str, Any]:
    """The questions copier.yml asks (settings and computed values left out)."""
    return questions()


def run(
    cmd: list[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    input_text: str | None = None,
) -> str:
    """Run a command and return its output; on failure, fail the test with that output."""
    proc = subprocess.run(
        cmd,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=input_text,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        pytest.fail(
            f"`{' '.join(cmd)}` exited {proc.returncode} in {cwd}\n"
            f"--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}",
            pytrace=False,
        )
    return proc.stdout + proc.stderr


def tool(name: str) -> str:
    """A command-line tool installed beside the test interpreter (the nox session's venv)."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found, f"{name} is not installed in the test environment"
    return found


def git(*args: str, cwd: Path) -> str:
    """Run git with a fixed identity and no user configuration."""
    return run(["git", *args], cwd=cwd)


def committed(project: Path, message: str = "render") -> Path:
    """``project`` in a git repository of its own, committed as its user commits a render."""
    git("init", "-q", "-b", "main", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", message, cwd=project)
    return project


def copy_working_tree(dst: Path) -> None:
    """Copy tracked and untracked-but-not-ignored files of this checkout into ``dst``."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    dst.mkdir(parents=True, exist_ok=True)
    for rel in filter(None, listed.split("\0")):
        src = REPO_ROOT / rel
        if not src.is_file():  # deleted in the working tree but still in the index
            continue
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def overlay_owned_tests(template_root: Path) -> None:
    """Lay the template-owned code's tests (``tests/owned/``) into ``template_root``'s tree.

    An owned helper named like a file of the render replaces it, and the render's own stays
    beside it as ``<stem>_seed``: the full fake CuPy serves the owned tests under the render's
    fixtures, and they prove the seed the render ships too.
    """
    target = template_root / "template" / "tests"
    for src in sorted(OWNED_TESTS.iterdir()):
        if src.is_file() and src.suffix in {".py", ".jinja", ".toml"}:
            seed = target / src.name
            if seed.is_file() and src.suffix == ".py":
                seed.rename(seed.with_stem(f"{seed.stem}_seed"))
            shutil.copy2(src, target / src.name)


def snapshot_working_tree(
    dst: Path, tag: str = WORKING_TREE_TAG, *, owned_tests: bool = False
) -> Path:
    """Copy the working tree into a fresh repo, commit and tag it.

    Rendering from the tag makes uncommitted edits testable and keeps ``_commit`` stable. With
    ``owned_tests``, every render also carries the tests of the template-owned code.
    """
    copy_working_tree(dst)
    if owned_tests:
        overlay_owned_tests(dst)
    git("tag", tag, cwd=committed(dst, "snapshot of the working tree"))
    return dst


def isolation(home: Path) -> dict[str, str]:
    """Environment that keeps the user's Copier settings and git configuration out of a render
    (files in ``home``), with a fixed git identity."""
    settings = home / "copier-settings.yml"
    settings.write_text("{}\n", encoding="utf-8")
    return {
        "COPIER_SETTINGS_PATH": str(settings),
        "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Template Tests",
        "GIT_AUTHOR_EMAIL": "tests@example.org",
        "GIT_COMMITTER_NAME": "Template Tests",
        "GIT_COMMITTER_EMAIL": "tests@example.org",
    }


@pytest.fixture(scope="session", autouse=True)
def isolated_environment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep the user's Copier settings and git configuration out of every render."""
    overrides = isolation(tmp_path_factory.mktemp("home"))
    # nox's uv backend points UV_PYTHON at its session's venv; a render's own uv must pick the
    # Python its requires-python asks for (the default floor is newer than the session's).
    # pytest-xdist's workers set COLUMNS=80 and LINES=24, and uv wraps its messages at COLUMNS:
    # a test that reads one would see it broken across lines on a worker alone.
    unset = ["UV_PYTHON", "COLUMNS", "LINES"]
    saved = {key: os.environ.get(key) for key in [*overrides, *unset]}
    for key in unset:
        os.environ.pop(key, None)
    os.environ.update(overrides)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def template_repo(tmp_path_factory: pytest.TempPathFactory, isolated_environment: None) -> Path:
    """The working tree, committed and tagged in a throw-away repository."""
    return snapshot_working_tree(tmp_path_factory.mktemp("template") / "repo")


@pytest.fixture(scope="session")
def suite_template_repo(
    tmp_path_factory: pytest.TempPathFactory, isolated_environment: None
) -> Path:
    """The working tree with ``tests/owned/`` laid into its template, committed and tagged."""
    root = tmp_path_factory.mktemp("suite-template") / "repo"
    return snapshot_working_tree(root, owned_tests=True)


Render = Callable[..., Path]


def copy_template(src: Path, dst: Path, answers: Mapping[str, Any], vcs_ref: str) -> Path:
    """Render ``src`` at ``vcs_ref`` into ``dst``, untrusted; unanswered questions take defaults."""
    from copier import run_copy

    run_copy(
        str(src),
        dst,
        data=dict(answers),
        defaults=True,
        unsafe=False,
        vcs_ref=vcs_ref,
        quiet=True,
    )
    return dst


def committed_render(template: Path, vcs_ref: str) -> Path:
    """``template`` at ``vcs_ref``, rendered beside it with the defaults and committed as a user
    commits a new project: the starting point of every update test."""
    project = copy_template(template, template.parent / "project", {}, vcs_ref)
    return committed(project, f"render {vcs_ref}")


def update_project(project: Path, vcs_ref: str, data: Mapping[str, Any] | None = None) -> None:
    """Run ``copier update`` to ``vcs_ref`` as a user does: untrusted, conflicts written inline.

    ``data`` changes answers, as ``--data`` does.
    """
    from copier import run_update

    run_update(
        project,
        data=dict(data or {}),
        defaults=True,
        overwrite=True,
        unsafe=False,
        vcs_ref=vcs_ref,
        quiet=True,
        conflict="inline",
    )


def project_files(project: Path) -> dict[str, bytes]:
    """Every file of a project outside ``.git``, by its path in the project (POSIX)."""
    return {
        p.relative_to(project).as_posix(): p.read_bytes()
        for p in sorted(project.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(project).parts
    }


def run_pytest_of(built: Built, *args: str, sim: bool = False) -> str:
    """Run the built project's pytest (``-rs``: skips say why), under the simulator or not."""
    env = {"NUMBA_ENABLE_CUDASIM": "1" if sim else "0"}
    cmd = [str(built.venv_python), "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args]
    return run(cmd, cwd=built.project, env=env)


def pyproject(project: Path) -> dict[str, Any]:
    """A project's pyproject.toml, parsed."""
    return tomllib.loads((project / "pyproject.toml").read_text("utf-8"))


def parse_structured(path: Path) -> bool:
    """Parse a TOML, YAML or Python file (a syntax error raises); False for any other kind."""
    text = path.read_text("utf-8")
    if path.suffix == ".toml":
        tomllib.loads(text)
    elif path.suffix in {".yml", ".yaml"}:
        yaml.safe_load(text)
    elif path.suffix == ".py":
        ast.parse(text, filename=str(path))
    else:
        return False
    return True


def renderer(repo: Path, tmp_path_factory: pytest.TempPathFactory, folder: str) -> Render:
    """Render ``repo``'s tag with the given answers into a new folder under ``folder``.

    A render is a function of its answers (``repo``'s tag never moves in a session), so each set
    of answers is rendered once, into a folder no test sees, and every call gets a copy of it: a
    copy takes a fiftieth of a render's time, and a test may change its project freely. A set
    that is refused raises on every call, as Copier does.
    """
    pristine = tmp_path_factory.mktemp(f"{folder}-pristine")
    rendered: dict[str, Path] = {}

    def _render(answers: Mapping[str, Any] | None = None, name: str = "project") -> Path:
        key = json.dumps(dict(answers or {}), sort_keys=True)
        if key not in rendered:
            first = pristine / str(len(rendered))
            copy_template(repo, first, answers or {}, WORKING_TREE_TAG)
            rendered[key] = first
        dst = tmp_path_factory.mktemp(folder) / name
        return Path(shutil.copytree(rendered[key], dst, symlinks=True))

    return _render


@pytest.fixture(scope="session")
def render(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Render:
    """Render the working tree with the given answers into a new folder and return it."""
    return renderer(template_repo, tmp_path_factory, "render")


@pytest.fixture(scope="session")
def render_suite(suite_template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Render:
    """Render a project with the template-owned code's tests beside its own (same answers)."""
    return renderer(suite_template_repo, tmp_path_factory, "suite")


@dataclass(frozen=True)
class Built:
    """A rendered project with its sdist, wheel and a venv that has the wheel installed.

    ``suite`` is the same answers rendered with the template-owned code's tests beside the
    project's own: the tests that prove the template run there, against the same wheel.
    """

    answers: dict[str, Any]
    project: Path
    sdist: Path
    wheel: Path
    venv_python: Path
    suite: Path | None = None

    def cuda_majors(self) -> list[int]:
        """The CUDA majors the render serves, as its GPU module states them (oldest first).

        Not an answer: a project that serves every major records ``cuda_every_major`` alone.
        """
        package = self.answer("package_name")
        facts = runpy.run_path(str(self.project / "src" / package / "gpu" / "_project.py"))
        return list(facts["CUDA_MAJORS"])

    def answer(self, key: str) -> Any:
        """The answer Copier recorded for ``key`` (defaults included)."""
        recorded = yaml.safe_load((self.project / ".copier-answers.yml").read_text("utf-8"))
        return recorded[key]


def build_and_install(
    project: Path, answers: dict[str, Any], suite: Path | None = None, *, python: str | None = None
) -> Built:
    """Build sdist and wheel with uv, then install the wheel and the dev group in a fresh venv.

    The venv uses ``python``, by default the project's minimum Python, so every render also
    proves its floor.
    """
    recorded = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    python = python or recorded["python_min"]
    run(["uv", "build", "--quiet", "--python", python, "--out-dir", "dist"], cwd=project)
    sdist = next((project / "dist").glob("*.tar.gz"))
    wheel = next((project / "dist").glob("*.whl"))
    venv = project.parent / "venv"
    run(["uv", "venv", "--quiet", "--python", python, str(venv)], cwd=project)
    venv_python = venv / ("Scripts" if sys.platform == "win32" else "bin") / "python"
    # --python, not VIRTUAL_ENV: nox's own environment variables must not redirect the install.
    install = ["uv", "pip", "install", "--quiet", "--python", str(venv_python)]
    run([*install, str(wheel), "--group", "dev"], cwd=project)
    return Built(dict(answers), project, sdist, wheel, venv_python, suite)


# The renders `nox -s tests` builds, installs and tests: the defaults (every major), every
# library and example on every major, and one major alone. The rest of the matrix (the other
# Python floors, the other library sets) is built by `nox -s tests_full`.
BUILT_IN_TESTS = ("defaults", "all-majors", f"cuda{OLDEST_MAJOR}")
# The owned code's exhaustive suite, the longest run of a build, in `nox -s tests`: on every
# library and major, and on the default libraries with one major. The defaults' own (the default
# libraries on every major, a subset of both) waits for the full tier.
OWNED_SUITE_IN_TESTS = ("all-majors", f"cuda{OLDEST_MAJOR}")


def built_params(in_tests: tuple[str, ...]) -> list[Any]:
    """The render matrix as params of ``built``: those not ``in_tests`` marked ``full``."""
    return [
        pytest.param(name, marks=() if name in in_tests else pytest.mark.full)
        for name in sorted(RENDER_MATRIX)
    ]


@pytest.fixture(scope="session", params=built_params(BUILT_IN_TESTS))
def built(request: pytest.FixtureRequest, render: Render, render_suite: Render) -> Built:
    """Each render of the matrix, built and installed once per test session."""
    answers = RENDER_MATRIX[request.param]
    project = render(answers, name=request.param)
    return build_and_install(project, answers, render_suite(answers, name=request.param))


# --- tier membership: what builds is marked ---------------------------------------------------

# A test that reaches one of these names (itself, through a fixture it requests, or through a
# function of its module that either calls) builds or installs a render: it must not be in the
# quick tier. A command list that starts with "uv" (build, venv, pip, sync, lock) counts too.
BUILDERS = frozenset({"build_and_install", "built"})
TIER_REPORT = "CUDA_TEMPLATE_TIER_REPORT"


_FOUND: dict[Any, str | None] = {}  # code object -> its builder; a suite shares most fixtures


def _builder_in(func: Callable[..., Any]) -> str | None:
    """The first builder that ``func``'s body (or a function of its module it calls) reaches."""
    func = inspect.unwrap(func)
    code = getattr(func, "__code__", None)
    if code is None or not Path(code.co_filename).is_relative_to(REPO_ROOT):
        return None
    if code not in _FOUND:
        _FOUND[code] = None  # a function that calls itself, or one that calls it back
        _FOUND[code] = _builder_in_body(func)
    return _FOUND[code]


def _builder_in_body(func: Any) -> str | None:
    tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(func)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in BUILDERS:
            return f"{func.__name__} uses {node.id}"
        if isinstance(node, ast.arg) and node.arg in BUILDERS:
            return f"{func.__name__} requests {node.arg}"
        if (
            isinstance(node, ast.List)
            and node.elts
            and isinstance(node.elts[0], ast.Constant)
            and node.elts[0].value == "uv"
        ):
            return f"{func.__name__} runs uv"
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            callee = func.__globals__.get(node.id)
            if inspect.isfunction(callee) and (found := _builder_in(callee)):
                return found
    return None


def builds(item: pytest.Item) -> str | None:
    """Why ``item`` builds or installs a render (None when it does neither)."""
    if isinstance(item, pytest.Function) and (found := _builder_in(item.function)):
        return found
    info = getattr(item, "_fixtureinfo", None)
    for name in getattr(item, "fixturenames", ()):
        if name in BUILDERS:
            return f"requests {name}"
        for fixturedef in info.name2fixturedefs.get(name, ()) if info else ():
            if found := _builder_in(fixturedef.func):
                return found
    return None


def pytest_collection_finish(session: pytest.Session) -> None:
    """With CUDA_TEMPLATE_TIER_REPORT set, write each collected test's markers and builder."""
    report = os.environ.get(TIER_REPORT)
    if not report:
        return
    rows = [
        {
            "nodeid": item.nodeid,
            "markers": sorted({mark.name for mark in item.iter_markers()}),
            "builds": builds(item),
        }
        for item in session.items
    ]
    Path(report).write_text(json.dumps(rows, indent=1), encoding="utf-8")
