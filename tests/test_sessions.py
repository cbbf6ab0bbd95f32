"""The generated noxfile, run for real: the CPU matrix, lint, typecheck, build and docs pass,
and tests_gpu reports the documented outcome on a machine without a GPU."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    ALL_EXAMPLES,
    ALL_LIBRARIES,
    MAJORS,
    Built,
    Render,
    build_and_install,
    git,
    run,
)
from nox import registry as nox_registry
from template_data import load_computed

pytestmark = pytest.mark.slow

MATRIX = load_computed("cuda_matrix")

VARIANTS = {
    "defaults": {},
    "all-options": {
        "gpu_libraries": ALL_LIBRARIES,
        "examples": ALL_EXAMPLES,
        "python_min": "3.12",
        "docs": "sphinx",
        "benchmarks": True,
        "deep_checks": True,
    },
}


# The README's tier runs the sessions of the default render; the full tier those of every option.
@pytest.fixture(
    scope="module",
    params=[
        pytest.param(name, marks=() if name == "defaults" else pytest.mark.full)
        for name in sorted(VARIANTS)
    ],
)
def project(request: pytest.FixtureRequest, render: Render) -> Built:
    """A render in its own git repository (hatch-vcs reads the version from it), with nox."""
    answers = VARIANTS[request.param]
    built = build_and_install(render(answers, name=f"sessions-{request.param}"), answers)
    git("init", "-q", "-b", "main", cwd=built.project)
    git("add", "-A", cwd=built.project)
    git("commit", "-q", "-m", "render", cwd=built.project)
    return built


def nox(
    built: Built, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the project's own nox (from its dev group) with a private envdir."""
    envdir = built.project.parent / "nox-envs"
    cmd = [str(built.venv_python), "-m", "nox", "--envdir", str(envdir)]
    cmd += ["--no-error-on-missing-interpreters", *args]
    return subprocess.run(
        cmd, cwd=built.project, env={**os.environ, **(env or {})}, capture_output=True, text=True
    )


def test_cpu_matrix_passes_on_every_installed_python(project: Built) -> None:
    result = nox(project, "-s", "tests_cpu")
    assert result.returncode == 0, result.stderr[-3000:]
    floor = project.answer("python_min")
    assert f"Session tests_cpu-{floor} was successful" in result.stderr


@pytest.mark.parametrize(
    "session",
    [
        "lint",
        # `_install(".", "--group", "dev")`, then mypy: test_build.py's
        # test_mypy_strict_passes_on_package_tests_and_noxfile[defaults] runs the same mypy
        # over the same files, the owned tests too, in a venv of the wheel and the dev group.
        pytest.param("typecheck", marks=pytest.mark.full),
        "build",
        # The tests tier runs the default render's docs session twice, a module gone between:
        # tests/test_project_upkeep.py::test_docs_session_builds_after_a_module_goes_away.
        pytest.param("docs", marks=pytest.mark.full),
    ],
)
def test_quality_sessions_pass(project: Built, session: str) -> None:
    result = nox(project, "-s", session)
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"Session {session} was successful" in result.stderr


def test_simulator_session_runs_the_kernel_tests(project: Built) -> None:
    result = nox(project, "-s", "tests_sim")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # Two pytest runs: the simulator selection, then the PTX/NVRTC compile checks, which the
    # deep_checks answer brings; without it the session says so and runs no second pytest.
    summaries = [line for line in result.stdout.splitlines() if " passed" in line]
    deep = bool(list(project.project.glob("tests/test_*_ptx.py")))
    assert len(summaries) == 1 + deep, result.stdout[-3000:]
    simulated, *compiled = summaries
    assert " failed" not in simulated
    if not deep:
        assert "`uvx copier update --defaults --data deep_checks=true` adds them" in result.stderr
    for line in compiled:
        assert " failed" not in line
        assert " skipped" not in line  # numba-cuda and NVRTC are installed: nothing to skip


def test_gpu_session_on_a_cpu_machine_is_skipped_with_the_reason_or_fails_if_required(
    project: Built,
) -> None:
    skipped = nox(project, "-s", "tests_gpu", env={"REQUIRE_GPU": ""})
    assert skipped.returncode == 0
    assert "Session tests_gpu skipped: tests_gpu needs an NVIDIA GPU" in skipped.stderr
    assert "set REQUIRE_GPU=1 to make this a failure" in skipped.stderr
    failed = nox(project, "-s", "tests_gpu", env={"REQUIRE_GPU": "1"})
    assert failed.returncode == 1
    assert "Session tests_gpu aborted" in failed.stderr
    assert "tests_gpu needs an NVIDIA GPU" in failed.stderr


# Without benchmarks/ the session skips naming the answer: tests/test_benchmarks_option.py.
def test_bench_session_prints_the_cpu_tables_without_the_cuda_extra(project: Built) -> None:
    if not project.answer("benchmarks"):
        pytest.skip("rendered without benchmarks/")
    result = nox(project, "-s", "bench", "--", "--quick")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "CPU figures only: nvidia-smi" in result.stderr
    for major in project.cuda_majors():  # no GPU: no CUDA wheels
        assert f".[cuda{major}]" not in result.stderr
    assert "vs import numpy" in result.stdout  # the import-cost table
    assert ("copy floor (numpy.copyto)" in result.stdout) == (
        "numba" in project.answer("gpu_libraries")
    )


# The tests tier runs the coverage session on the default render with the guide's and a user's
# modules (tests/test_coverage_session.py): it holds its floor there, measures your code alone
# and fails on an untested module. Here, on the bare render, in the full tier.
@pytest.mark.full
def test_coverage_runs_the_tests_itself_and_holds_its_floor(project: Built) -> None:
    # Its own runs, whatever ran before: the suite with the JIT off, then the simulator.
    result = nox(project, "-s", "coverage")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert re.search(r"^TOTAL .* (9\d|100)%$", result.stdout, flags=re.MULTILINE), result.stdout
    # Only your code counts: the package's own modules, not the template's subpackages.
    assert "/gpu/" not in result.stdout
    assert "/kernels/" not in result.stdout


@pytest.mark.full  # tests/test_coverage_session.py::test_coverage_ignores_data_an_earlier_run_left
def test_coverage_fails_when_your_code_has_untested_lines(project: Built) -> None:
    # A module of yours that no test runs: coverage finds it in the installed package.
    untested = project.project / "src" / project.answer("package_name") / "untested.py"
    body = "".join(f"    total += {i}\n" for i in range(20))
    untested.write_text(f"def add() -> int:\n    total = 0\n{body}    return total\n", "utf-8")
    try:
        result = nox(project, "-s", "coverage")
    finally:
        untested.unlink()
    assert result.returncode != 0
    assert "untested.py" in result.stdout
    assert "is less than fail-under=90" in result.stdout


def test_default_sessions_are_the_cpu_tests_coverage_lint_and_typecheck(project: Built) -> None:
    listed = nox(project, "-l").stdout
    assert "* lint" in listed
    assert "* typecheck" in listed
    assert "* tests_cpu" in listed
    assert "* coverage" in listed
    assert "- tests_gpu" in listed  # listed, not run by default


class SessionError(Exception):
    """What ``session.error`` raises in nox: the session stops there."""


class SessionSkipped(Exception):
    """What ``session.skip`` raises in nox: the session ends, skipped, there."""


class RecordingSession:
    """Stands in for nox's session: records what would be installed and run."""

    def __init__(self) -> None:
        self.posargs: list[str] = []
        self.calls: list[tuple[str, ...]] = []
        self.envs: list[object] = []  # the env= of each run, in order
        self.success_codes: list[object] = []  # and its success_codes=

    def install(self, *args: str, **kwargs: object) -> None:
        self.calls.append(("install", *args))

    def run(self, *args: str, **kwargs: object) -> None:
        self.calls.append(("run", *args))
        self.envs.append(kwargs.get("env"))
        self.success_codes.append(kwargs.get("success_codes"))

    def error(self, message: str) -> None:
        raise SessionError(message)

    def log(self, message: str) -> None:
        self.calls.append(("log", message))

    def warn(self, message: str) -> None:
        self.calls.append(("warn", message))

    def skip(self, message: str) -> None:
        raise SessionSkipped(message)


def load_noxfile(project: Path, name: str) -> Any:
    """A render's noxfile as a module, its functions callable with a recording session.

    nox keeps one registry of sessions per process, as each nox run loads one noxfile: it is
    emptied first, or a second noxfile's sessions would be refused as registered twice.
    """
    nox_registry.reset()
    spec = importlib.util.spec_from_file_location(name, project / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    noxfile: Any = importlib.util.module_from_spec(spec)
    sys.modules[name] = noxfile  # as nox does: the answers' tools/nox_*.py import it
    spec.loader.exec_module(noxfile)
    for session, func in nox_registry.get().items():  # theirs too, as the noxfile's names
        if not hasattr(noxfile, session):
            setattr(noxfile, session, func)
    return noxfile


@pytest.fixture(scope="module")
def gpu_noxfile(render: Render) -> Any:
    """The noxfile of a render serving every major, as on a host whose nvidia-smi lists a GPU."""
    answers = {"gpu_libraries": ["cupy", "numba", "pycuda"]}
    project = render({**answers, "deep_checks": True}, name="gpu-session")
    with contextlib.chdir(project):  # nox loads a noxfile from its folder: the PTX tests' glob
        noxfile = load_noxfile(project, "rendered_noxfile")
    noxfile._nvidia_smi = lambda: (None, ())  # a GPU, its driver's version unknown
    noxfile.real_pycuda_unbuildable = noxfile._pycuda_unbuildable
    noxfile._pycuda_unbuildable = lambda: None  # a runner with the CUDA toolkit and g++
    return noxfile


@pytest.fixture(scope="module")
def examples_project(render: Render) -> Path:
    """A render with every worked example, their benchmark rows and the docs site."""
    answers = {"examples": ALL_EXAMPLES, "benchmarks": True, "docs": "sphinx"}
    return render(answers, name="examples-sessions")


def test_bench_session_runs_the_scripts_and_not_the_row_files_they_import(
    examples_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    noxfile = load_noxfile(examples_project, "bench_noxfile")
    monkeypatch.setattr(noxfile, "_nvidia_smi", lambda: ("no GPU here", ()))
    monkeypatch.chdir(examples_project)
    session = RecordingSession()
    noxfile.bench(session)
    benchmarks = Path("benchmarks")
    rows = sorted(str(path) for path in benchmarks.glob("kernels_*.py"))
    assert rows, "the render has no row files: the test proves nothing"
    scripts = [call[2] for call in session.calls if call[:2] == ("run", "python")]
    assert scripts == sorted(str(path) for path in benchmarks.glob("*.py") if str(path) not in rows)


def test_docs_session_builds_from_nothing_so_no_page_of_a_removed_module_stays(
    examples_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    noxfile = load_noxfile(examples_project, "docs_noxfile")
    monkeypatch.chdir(examples_project)
    stale = [Path("docs/generated/my_gpu_project.gone.rst"), Path("docs/_build/html/gone.html")]
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("a module renamed since", "utf-8")
    session = RecordingSession()
    noxfile.docs(session)
    assert [path for path in stale if path.exists()] == []
    assert [call[1] for call in session.calls if call[0] == "run"] == ["sphinx-build"]


def _driver(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


NEWEST_FLOORS = [("", _driver(MATRIX["majors"][str(m)]["min_driver_linux"]), m) for m in MAJORS]


@pytest.mark.parametrize(
    ("cuda_major", "driver", "major"),
    [*NEWEST_FLOORS, ("", (), MAJORS[-1]), (str(MAJORS[0]), (999,), MAJORS[0])],
    ids=[*(f"driver-runs-{m}" for m in MAJORS), "driver-unknown", "cuda-major-names-it"],
)
def test_gpu_session_installs_the_extra_the_driver_or_cuda_major_picks_probes_and_tests(
    gpu_noxfile: Any,
    monkeypatch: pytest.MonkeyPatch,
    cuda_major: str,
    driver: tuple[int, ...],
    major: int,
) -> None:
    monkeypatch.setenv("CUDA_MAJOR", cuda_major)
    monkeypatch.setattr(gpu_noxfile, "_nvidia_smi", lambda: (None, driver))
    session = RecordingSession()
    gpu_noxfile.tests_gpu(session)
    warned = [call for call in session.calls if call[0] == "warn"]
    unknown = f"the driver's version is unknown: cuda{major}, the newest (CUDA_MAJOR=NN)"
    assert warned == ([] if driver or cuda_major else [("warn", unknown)])
    assert [call for call in session.calls if call[0] != "warn"] == [
        ("install", f".[cuda{major},pycuda]", "--group", "test"),
        ("run", "python", "-m", f"{gpu_noxfile.PACKAGE}.doctor", "--probe"),
        ("run", "pytest", "-m", "not large"),
        ("run", "pytest", "-m", "large"),
    ]
    # The large-array tests in a process of their own, without JAX's preallocation; a project
    # without any selects none there (pytest's 5), while the other run must test.
    gpu_env = {"REQUIRE_GPU": "1", "FORCE_CPU": "0", "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    assert session.envs[-2:] == [gpu_env, gpu_env]
    assert session.success_codes[-2:] == [None, [0, 5]]


def test_gpu_session_leaves_pycuda_and_its_gpu_tests_out_where_it_cannot_be_built(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUDA_MAJOR", str(MAJORS[-1]))
    monkeypatch.chdir(Path(gpu_noxfile.__file__).parent)
    monkeypatch.setattr(gpu_noxfile, "_pycuda_unbuildable", lambda: "no C++ compiler on PATH")
    session = RecordingSession()
    gpu_noxfile.tests_gpu(session)
    says = "PyCUDA and its GPU tests left out: no C++ compiler on PATH"
    assert session.calls[0] == ("warn", says)
    assert session.calls[1] == ("install", f".[cuda{MAJORS[-1]}]", "--group", "test")
    ignored = ("--ignore=tests/test_kernels_pycuda.py", "--ignore=tests/test_large_pycuda.py")
    assert session.calls[3] == ("run", "pytest", "-m", "not large", *ignored)
    assert session.calls[4] == ("run", "pytest", "-m", "large", *ignored)


def test_pycuda_is_buildable_with_a_compiler_and_a_toolkit_that_has_cuda_h_and_curand_h(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    check = gpu_noxfile.real_pycuda_unbuildable
    for name in ("CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no nvcc, no compiler
    monkeypatch.setattr(gpu_noxfile, "_cxx", lambda: None)
    assert check() == "no C++ compiler on PATH (apt-get install g++)"
    monkeypatch.setattr(gpu_noxfile, "_cxx", lambda: "/usr/bin/g++")
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "cuda.h").touch()
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert "no CUDA toolkit with cuda.h and curand.h" in check()  # curand.h is missing
    (tmp_path / "include" / "curand.h").touch()
    assert check() is None


@pytest.mark.parametrize(
    ("cuda_major", "driver", "says"),
    [
        ("99", (999,), "CUDA_MAJOR=99: this project serves CUDA"),
        ("", (400, 1), "the NVIDIA driver (400.1) is older than this project needs (>= "),
    ],
    ids=["major-not-served", "driver-too-old"],
)
def test_gpu_session_stops_with_the_reason_when_no_extra_fits(
    gpu_noxfile: Any,
    monkeypatch: pytest.MonkeyPatch,
    cuda_major: str,
    driver: tuple[int, ...],
    says: str,
) -> None:
    monkeypatch.setenv("CUDA_MAJOR", cuda_major)
    monkeypatch.setattr(gpu_noxfile, "_nvidia_smi", lambda: (None, driver))
    session = RecordingSession()
    with pytest.raises(SessionError, match=re.escape(says)):
        gpu_noxfile.tests_gpu(session)
    assert session.calls == []  # nothing installed


def lock_export_command(workflow: str) -> list[str]:
    """The `uv export` command line CI runs before nox, as the workflow writes it."""
    text = (workflow.split("uv export", 1)[1].split("\n\n", 1)[0]).replace("\\\n", " ")
    return ["uv", "export", *text.split("\n", 1)[0].split()]


def test_ci_installs_take_the_versions_the_lock_pins(render: Render, tmp_path: Path) -> None:
    project = render({"gpu_libraries": ["cupy", "numba"]}, name="locked")
    git("init", "-q", "-b", "main", cwd=project)
    run(["uv", "lock", "--quiet"], cwd=project)
    workflow = (project / ".github/workflows/ci.yml").read_text("utf-8")
    command = lock_export_command(workflow)
    assert command[-2:] == ["--output-file", '"${RUNNER_TEMP}/uv-lock.txt"']
    constraints = tmp_path / "uv-lock.txt"
    run([*command[:-1], str(constraints)], cwd=project)
    locked = constraints.read_text("utf-8")
    assert re.search(r"^hypothesis==", locked, flags=re.MULTILINE)
    # An older hypothesis than the newest the range allows: the install must take the lock's.
    constraints.write_text(re.sub(r"(?m)^hypothesis==\S+", "hypothesis==6.100.0", locked))
    floor = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))["python_min"]
    envdir = tmp_path / "nox-envs"
    nox_cmd = [sys.executable, "-m", "nox", "--envdir", str(envdir), "--install-only"]
    run(
        [*nox_cmd, "-s", f"tests_cpu-{floor}"],
        cwd=project,
        env={"LOCK_CONSTRAINTS": str(constraints)},
    )
    # One session, one environment: nox names it by a hash where the path would be long, as
    # under a pytest-xdist worker's tmp_path.
    (python,) = envdir.glob("*/bin/python")
    installed = subprocess.run(
        [str(python), "-c", "import hypothesis; print(hypothesis.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert installed == "6.100.0"


def session_in(venv: Path) -> RecordingSession:
    """A recording session whose environment is ``venv`` (made with ``uv venv``)."""
    session = RecordingSession()
    session.bin = str(venv / "bin")  # type: ignore[attr-defined]
    return session


def test_simulator_tests_are_skipped_with_uvs_reason_where_numba_cuda_cannot_join(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    session = session_numba_cuda_cannot_join(tmp_path, monkeypatch)
    gpu_noxfile.tests_sim(session)
    (kind, message), install, ptx = session.calls
    assert kind == "warn"
    assert message.startswith("simulator tests skipped: numba-cuda cannot be installed here: ")
    assert message.endswith("we can conclude that your requirements are unsatisfiable.")
    assert "numpy<2.5 and numpy>=2.5" in message
    # No simulator run; the PTX tests still run, on the compiler the GPU extra ships.
    compiler = [req for req in gpu_noxfile.NUMBA_CUDA if req.startswith("numba-cuda-mlir")]
    assert install == ("install", ".", "--group", "test", *compiler)
    assert ptx == ("run", "pytest", *gpu_noxfile.TOOLCHAIN_TESTS)


def test_simulator_session_installs_numba_cuda_where_it_can_join(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    run(["uv", "venv", "-q", "-p", "3.11", str(tmp_path / "venv")], cwd=tmp_path)
    monkeypatch.chdir(Path(gpu_noxfile.__file__).parent)
    session = session_in(tmp_path / "venv")
    gpu_noxfile.tests_sim(session)
    assert session.calls == [
        ("install", ".", "--group", "test", *gpu_noxfile.NUMBA_CUDA),
        ("run", "pytest", "-m", "cudasim"),
        ("run", "pytest", *gpu_noxfile.TOOLCHAIN_TESTS),
    ]


def session_numba_cuda_cannot_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> RecordingSession:
    """A recording session, run from a project that needs NumPy >= 2.5, which numba-cuda's cap
    (< 2.5) cannot join."""
    run(["uv", "venv", "-q", "-p", "3.12", str(tmp_path / "venv")], cwd=tmp_path)
    pyproject = (
        '[project]\nname = "needs-new-numpy"\nversion = "1"\ndependencies = ["numpy>=2.5"]\n'
    )
    (tmp_path / "pyproject.toml").write_text(pyproject, "utf-8")
    monkeypatch.chdir(tmp_path)
    return session_in(tmp_path / "venv")


def test_coverage_leaves_the_simulator_run_out_with_uvs_reason_where_numba_cuda_cannot_join(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    session = session_numba_cuda_cannot_join(tmp_path, monkeypatch)
    for name in ("LOCK_CONSTRAINTS", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(name, raising=False)
    gpu_noxfile.coverage(session)
    (kind, message), *rest = session.calls
    assert kind == "warn"
    assert message.startswith("simulator tests skipped: numba-cuda cannot be installed here: ")
    assert "numpy<2.5 and numpy>=2.5" in message
    # The project without numba-cuda, and the suite's run alone: no simulator run.
    assert rest[0] == ("install", ".", "--group", "test")
    runs = [call[1:] for call in rest[1:]]
    assert runs[1] == ("coverage", "run", "-m", "pytest")
    assert not any("cudasim" in call for call in runs)
    assert runs[-2:] == [("coverage", "combine"), ("coverage", "report")]


def test_coverage_runs_the_simulator_where_numba_cuda_can_join(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    run(["uv", "venv", "-q", "-p", "3.11", str(tmp_path / "venv")], cwd=tmp_path)
    monkeypatch.chdir(Path(gpu_noxfile.__file__).parent)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    session = session_in(tmp_path / "venv")
    gpu_noxfile.coverage(session)
    assert session.calls[0] == ("install", ".", "--group", "test", *gpu_noxfile.NUMBA_CUDA)
    assert ("run", "coverage", "run", "-m", "pytest", "-m", "cudasim") in session.calls


# The legs past the supported Pythons (3.15, 3.14t) cannot run here, which has neither: an
# installed Python stands in for one by joining NEXT_PYTHONS.
def next_python_session(noxfile: Any, venv: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    run(["uv", "venv", "-q", "-p", "3.12", str(venv)], cwd=venv.parent)
    monkeypatch.setattr(noxfile, "NEXT_PYTHONS", ["3.12"])
    session = session_in(venv)
    session.python = "3.12"  # type: ignore[attr-defined]
    return session


def test_cpu_tests_on_a_next_python_are_skipped_naming_the_dependency_without_wheels(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    session = next_python_session(gpu_noxfile, tmp_path / "venv", monkeypatch)
    # PyCUDA is published as source only: a dependency without wheels for that Python.
    pyproject = '[project]\nname = "sdist-dep"\nversion = "1"\ndependencies = ["pycuda"]\n'
    (tmp_path / "pyproject.toml").write_text(pyproject + "[dependency-groups]\ntest = []\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SessionSkipped) as skipped:
        gpu_noxfile.tests_cpu(session)
    assert str(skipped.value).startswith("the dependencies lack wheels for Python 3.12: error: ")
    assert "pycuda" in str(skipped.value)
    assert "no usable wheels" in str(skipped.value)
    assert session.calls == []  # nothing installed, nothing run


def test_cpu_tests_on_a_next_python_take_the_newest_wheels_not_the_lock(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    session = next_python_session(gpu_noxfile, tmp_path / "venv", monkeypatch)
    monkeypatch.chdir(Path(gpu_noxfile.__file__).parent)
    monkeypatch.setenv("LOCK_CONSTRAINTS", str(tmp_path / "uv-lock.txt"))
    gpu_noxfile.tests_cpu(session)
    # No lock constraint, and every CUDA extra resolves there: no warning.
    assert session.calls == [("install", ".", "--group", "test"), ("run", "pytest")]


def unresolvable_extras(path: Path, majors: list[str]) -> None:
    """A project whose CUDA extras ask for a CuPy that does not exist."""
    extras = "".join(f'cuda{m} = ["cupy-cuda{m}x>=99"]\n' for m in majors)
    project = '[project]\nname = "future-gpu"\nversion = "1"\n'
    (path / "pyproject.toml").write_text(project + "[project.optional-dependencies]\n" + extras)


def test_a_cuda_extra_that_does_not_resolve_on_a_next_python_is_reported_with_uvs_reason(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    session = next_python_session(gpu_noxfile, tmp_path / "venv", monkeypatch)
    unresolvable_extras(tmp_path, list(gpu_noxfile.MIN_DRIVERS))
    monkeypatch.chdir(tmp_path)
    gpu_noxfile._resolve_cuda_extras(session)
    assert [call[0] for call in session.calls] == ["warn"] * len(gpu_noxfile.MIN_DRIVERS)
    for major, (_, message) in zip(gpu_noxfile.MIN_DRIVERS, session.calls, strict=True):
        assert message.startswith(f"cuda{major} does not resolve on Python 3.12: error: ")
        assert f"cupy-cuda{major}x>=99" in message


def test_a_cuda_extra_that_does_not_resolve_on_a_supported_python_fails_the_session(
    gpu_noxfile: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    session = next_python_session(gpu_noxfile, tmp_path / "venv", monkeypatch)
    monkeypatch.setattr(gpu_noxfile, "NEXT_PYTHONS", ["3.15"])
    unresolvable_extras(tmp_path, list(gpu_noxfile.MIN_DRIVERS))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SessionError, match=r"does not resolve on Python 3\.12: error: "):
        gpu_noxfile._resolve_cuda_extras(session)


def test_gpu_session_with_the_extension_stops_at_once_without_a_cpp_compiler(
    render: Render, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = render({"gpu_libraries": ["cupy"], "extension": "cuda-cpp"}, name="gpu-session-ext")
    noxfile = load_noxfile(project, "extension_noxfile")
    monkeypatch.setattr(noxfile, "_nvidia_smi", lambda: (None, ()))
    monkeypatch.setattr(noxfile, "_cxx", lambda: None)
    monkeypatch.setenv("CUDA_MAJOR", str(MAJORS[-1]))
    session = RecordingSession()
    with pytest.raises(SessionError, match="the CUDA extension builds from source and needs a C"):
        noxfile.tests_gpu(session)
    assert session.calls == []  # nothing installed: the build would fail at its first compile
