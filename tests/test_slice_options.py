"""The answers a new project starts without, each a slice of files that `--data` adds or drops:
benchmarks (the harness, `nox -s bench`), deep_checks (the tests past element 2**31, the PTX and
NVRTC compile checks and their helpers), multi_gpu (gpu/multi.py and gpu.mp_context) and
template_updates (the weekly workflow, `nox -s template_update`).

Rendering only. The slices' files run in the build suite (test_kernels.py, test_build.py,
test_sessions.py, test_guide.py, test_cupy_compile.py, test_template_update.py, the owned
tests); test_update_history.py updates a project from before each question.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
import yaml
from conftest import ALL_OPTIONS, WORKING_TREE_TAG, Render, committed, pyproject, update_project
from test_sessions import RecordingSession, load_noxfile

# Each slice as globs that find its files wherever they are, and what a default render (CuPy and
# Numba) has of it with the answer. The deep checks' block also takes the template's own tests of
# the helpers (tests/owned/), which a render for these tests does not carry.
SLICES: dict[str, tuple[list[str], list[str]]] = {
    # The scripts, and the table of GPUs' peak bandwidth that only benchmarks/kernels.py reads.
    "benchmarks": (
        ["benchmarks/*", "src/*/gpu/_devices.py", "tools/nox_bench.py"],
        [
            "benchmarks/README.md",
            "benchmarks/import_cost.py",
            "benchmarks/kernels.py",
            "src/my_gpu_project/gpu/_devices.py",
            "tools/nox_bench.py",
        ],
    ),
    "deep_checks": (
        ["tests/large_*.py", "tests/test_large_*.py", "tests/*_ptx.py", "tests/*cupy_compile*.py"],
        [
            "tests/cupy_compile.py",
            "tests/large_arrays.py",
            "tests/numba_ptx.py",
            "tests/test_kernels_numba_ptx.py",
            "tests/test_large_cupy.py",
            "tests/test_large_numba.py",
        ],
    ),
    # gpu/_multiprocessing.py comes with this answer or dask's (the cluster needs it).
    "multi_gpu": (
        ["src/*/gpu/multi.py", "src/*/gpu/_multiprocessing.py", "tests/test_gpu_real_multi.py"],
        [
            "src/my_gpu_project/gpu/_multiprocessing.py",
            "src/my_gpu_project/gpu/multi.py",
            "tests/test_gpu_real_multi.py",
        ],
    ),
    "template_updates": (
        [".github/workflows/template-update.yml", "tools/nox_template_update.py"],
        [".github/workflows/template-update.yml", "tools/nox_template_update.py"],
    ),
}
# A module of the render that reaches a slice would fail to import without it.
USES = {
    "deep_checks": re.compile(
        r"^(from|import) (large_\w+|cupy_compile|numba_ptx|test_\w+_ptx)\b", re.M
    ),
    "multi_gpu": re.compile(r"gpu\.multi\b|from \.multi import|\b(use_device|free_memory)\("),
}


def answers(project: Path) -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    return loaded


def slice_files(project: Path, option: str) -> list[str]:
    found = {path for pattern in SLICES[option][0] for path in project.glob(pattern)}
    return sorted(path.relative_to(project).as_posix() for path in found)


def users(project: Path, option: str) -> list[str]:
    """The render's modules that reach the slice."""
    return [p.name for p in project.rglob("*.py") if USES[option].search(p.read_text("utf-8"))]


def mypy_files(project: Path) -> list[str]:
    files: list[str] = pyproject(project)["tool"]["mypy"]["files"]
    return files


def gpu_init(project: Path) -> str:
    return next((project / "src").glob("*/gpu/__init__.py")).read_text("utf-8")


@pytest.mark.parametrize("option", SLICES)
def test_a_new_project_starts_without_the_slice(render: Render, option: str) -> None:
    project = render({}, name=f"{option}-default")
    assert answers(project)[option] is False
    assert slice_files(project, option) == []
    if option in USES:
        assert users(project, option) == []


@pytest.mark.parametrize("option", SLICES)
def test_the_answer_brings_the_slice(render: Render, option: str) -> None:
    project = render({option: True}, name=f"{option}-on")
    assert answers(project)[option] is True
    assert slice_files(project, option) == SLICES[option][1]


@pytest.mark.parametrize("option", SLICES)
def test_an_update_with_the_answer_false_removes_the_slice(render: Render, option: str) -> None:
    # What the CHANGELOG tells a project that does not want it.
    project = render({option: True}, name=f"{option}-dropped")
    committed(project)
    update_project(project, WORKING_TREE_TAG, {option: False})
    assert answers(project)[option] is False
    assert slice_files(project, option) == []


@pytest.mark.parametrize("option", sorted(USES))
def test_without_the_answer_no_module_of_an_all_options_render_reaches_the_slice(
    render: Render, option: str
) -> None:
    project = render({**ALL_OPTIONS, "extension": "cuda-cpp", option: False}, name="slice-off")
    # The dask cluster imports gpu/_multiprocessing.py: it stays, without gpu's names for it.
    kept = ["src/my_gpu_project/gpu/_multiprocessing.py"] if option == "multi_gpu" else []
    assert slice_files(project, option) == kept
    assert users(project, option) == []
    assert option != "multi_gpu" or "mp_context" not in gpu_init(project)


# --- benchmarks ----------------------------------------------------------------------------------


def test_mypy_checks_the_benchmarks_exactly_when_they_are_there(render: Render) -> None:
    # mypy fails on a path that does not exist.
    assert "benchmarks" not in mypy_files(render({}, name="benchmarks-default"))
    project = render({"benchmarks": True}, name="benchmarks-on")
    assert "benchmarks" in mypy_files(project)
    committed(project)
    update_project(project, WORKING_TREE_TAG, {"benchmarks": False})
    assert "benchmarks" not in mypy_files(project)


def test_answers_given_on_a_copy_leave_the_benchmarks_off(render: Render) -> None:
    # A copy's answers given as data are not answers recorded before.
    project = render({"license": "BSD-3-Clause", "docker": False}, name="benchmarks-data")
    assert answers(project)["benchmarks"] is False


@pytest.mark.parametrize(
    ("option", "session"), [("benchmarks", "bench"), ("template_updates", "template_update")]
)
def test_without_the_answer_its_session_is_absent_and_the_readme_names_the_answer(
    render: Render, option: str, session: str
) -> None:
    project = render({}, name=f"{option}-default")
    noxfile = load_noxfile(project, f"{option}_noxfile")
    assert not hasattr(noxfile, session)
    assert hasattr(noxfile, "update_check")
    readme = (project / "README.md").read_text("utf-8")
    assert f"{option}=true` (`{session}`)" in readme


def test_the_gpu_bandwidth_table_comes_only_with_the_benchmark_that_reads_it(
    render: Render,
) -> None:
    project = render({"gpu_libraries": ["cupy"], "benchmarks": True}, name="bench-cupy-only")
    assert not (project / "benchmarks" / "kernels.py").exists()
    assert not list(project.glob("src/*/gpu/_devices.py"))


# --- deep_checks ---------------------------------------------------------------------------------


def test_the_simulator_session_without_ptx_tests_warns_naming_the_answer(
    render: Render, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = render({}, name="deep-session")
    with contextlib.chdir(project):  # nox loads a noxfile from its folder
        noxfile = load_noxfile(project, "deep_noxfile")
    noxfile._install_simulator = lambda session: True  # numba-cuda joined: the simulator runs
    monkeypatch.chdir(project)
    session = RecordingSession()
    noxfile.tests_sim(session)
    # Not `pytest` with no paths, which would run every test of the project.
    assert session.calls == [
        ("run", "pytest", "-m", "cudasim"),
        (
            "warn",
            "no tests/test_*_ptx.py: `uvx copier update --defaults --data deep_checks=true`"
            " adds them",
        ),
    ]


# --- multi_gpu -----------------------------------------------------------------------------------


def test_gpu_offers_the_helpers_under_their_release_names_exactly_with_the_answer(
    render: Render,
) -> None:
    assert "mp_context" not in gpu_init(render({}, name="multi_gpu-default"))
    project = render({"multi_gpu": True}, name="multi_gpu-on")
    init = gpu_init(project)
    assert "from .multi import devices, free_memory, use_device" in init
    assert "from ._multiprocessing import cuda_may_be_initialised, fork_hazard, mp_context" in init
    assert '__all__ += ["devices", "free_memory", "use_device"]' in init
    assert '__all__ += ["cuda_may_be_initialised", "fork_hazard", "mp_context"]' in init
    committed(project)
    update_project(project, WORKING_TREE_TAG, {"multi_gpu": False})
    assert "from .multi import" not in gpu_init(project)


# --- template_updates ----------------------------------------------------------------------------


def test_the_template_updates_question_is_not_asked_without_github_actions(
    render: Render,
) -> None:
    project = render({"ci": "gitlab"}, name="template-updates-gitlab")
    assert "template_updates" not in answers(project)
    assert not (project / ".github").exists()
    # Its scheduled job runs the session, which stays.
    assert hasattr(load_noxfile(project, "gitlab_noxfile"), "template_update")
