"""The deep_checks option: the kernel checks a new project starts without, and `--data` adds or
drops: the tests past element 2**31, the PTX and NVRTC compile checks, and their helpers.

Rendering only. The checks themselves run in the build suite (test_kernels.py, test_guide.py,
test_cupy_compile.py); test_update_history.py updates a project from before the question.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
import yaml
from conftest import ALL_OPTIONS, WORKING_TREE_TAG, Render, committed, update_project
from test_sessions import RecordingSession, load_noxfile

# What the option brings to a default render (CuPy and Numba); its block also takes the template's
# own tests of the helpers (tests/owned/), which a render for these tests does not carry.
DEEP_FILES = [
    "tests/cupy_compile.py",
    "tests/large_arrays.py",
    "tests/numba_ptx.py",
    "tests/test_kernels_numba_ptx.py",
    "tests/test_large_cupy.py",
    "tests/test_large_numba.py",
]
# A render's own module that imports one of the slice's helpers would fail without it.
SLICE_IMPORT = re.compile(r"^(from|import) (large_\w+|cupy_compile|numba_ptx|test_\w+_ptx)\b", re.M)


def recorded(project: Path) -> object:
    return yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))["deep_checks"]


def deep_files(project: Path) -> list[str]:
    patterns = ["large_*.py", "test_large_*.py", "*_ptx.py", "*cupy_compile*.py"]
    found = {path for pattern in patterns for path in (project / "tests").glob(pattern)}
    return sorted(path.relative_to(project).as_posix() for path in found)


def test_a_new_project_starts_without_the_deep_checks(render: Render) -> None:
    project = render({}, name="deep-default")
    assert recorded(project) is False
    assert deep_files(project) == []


def test_without_the_answer_every_library_and_example_renders_no_import_of_the_checks(
    render: Render,
) -> None:
    answers = {**ALL_OPTIONS, "extension": "cuda-cpp", "deep_checks": False}
    project = render(answers, name="deep-off-all")
    assert deep_files(project) == []
    importing = [p.name for p in project.rglob("*.py") if SLICE_IMPORT.search(p.read_text("utf-8"))]
    assert importing == []


def test_the_answer_brings_the_deep_checks(render: Render) -> None:
    project = render({"deep_checks": True}, name="deep-on")
    assert recorded(project) is True
    assert deep_files(project) == DEEP_FILES


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
        ("warn", "no tests/test_*_ptx.py: `copier update --data deep_checks=true` adds them"),
    ]


def test_an_update_with_deep_checks_false_removes_them(render: Render) -> None:
    # What the CHANGELOG tells a project that does not want them.
    project = render({"deep_checks": True}, name="deep-dropped")
    committed(project)
    update_project(project, WORKING_TREE_TAG, {"deep_checks": False})
    assert recorded(project) is False
    assert deep_files(project) == []
