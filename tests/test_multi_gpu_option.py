"""The multi_gpu option: the helpers for several GPUs in one process, which a new project starts
without and `--data` adds or drops (gpu/multi.py; gpu.devices, use_device and free_memory), and
gpu.mp_context (gpu/_multiprocessing.py, which the dask answer's cluster needs too).

Rendering only. The helpers' own tests are owned (tests/owned/test_gpu_multi.py.jinja);
test_update_history.py updates a project from before the question.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from conftest import ALL_OPTIONS, WORKING_TREE_TAG, Render, committed, update_project

SLICE_FILES = ["src/{package}/gpu/multi.py", "tests/test_gpu_real_multi.py"]
MULTIPROCESSING = "src/{package}/gpu/_multiprocessing.py"  # with this answer or dask's
# A module of the render that reaches the slice would fail to import without it.
SLICE_USE = re.compile(r"gpu\.multi\b|from \.multi import|\b(use_device|free_memory)\(")


def recorded(project: Path) -> object:
    return yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))["multi_gpu"]


def slice_files(project: Path, files: list[str] = SLICE_FILES) -> list[str]:
    package = next(p.parent.name for p in (project / "src").glob("*/__init__.py"))
    return [
        f.format(package=package) for f in files if (project / f.format(package=package)).is_file()
    ]


def gpu_init(project: Path) -> str:
    return next((project / "src").glob("*/gpu/__init__.py")).read_text("utf-8")


def test_a_new_project_starts_without_the_multi_gpu_helpers(render: Render) -> None:
    project = render({}, name="multi-default")
    assert recorded(project) is False
    assert slice_files(project, [*SLICE_FILES, MULTIPROCESSING]) == []
    assert "mp_context" not in gpu_init(project)
    using = [p.name for p in project.rglob("*.py") if SLICE_USE.search(p.read_text("utf-8"))]
    assert using == []


def test_without_the_answer_every_option_renders_no_use_of_the_helpers(render: Render) -> None:
    project = render({**ALL_OPTIONS, "multi_gpu": False}, name="multi-off-all")
    assert slice_files(project) == []
    # The cluster imports it from gpu._multiprocessing; gpu offers its names with the answer only.
    assert len(slice_files(project, [MULTIPROCESSING])) == 1
    assert "mp_context" not in gpu_init(project)
    using = [p.name for p in project.rglob("*.py") if SLICE_USE.search(p.read_text("utf-8"))]
    assert using == []


def test_the_answer_brings_the_helpers_under_their_release_names(render: Render) -> None:
    project = render({"multi_gpu": True}, name="multi-on")
    assert recorded(project) is True
    assert len(slice_files(project, [*SLICE_FILES, MULTIPROCESSING])) == len(SLICE_FILES) + 1
    init = gpu_init(project)
    assert "from .multi import devices, free_memory, use_device" in init
    assert "from ._multiprocessing import cuda_may_be_initialised, fork_hazard, mp_context" in init
    assert '__all__ += ["devices", "free_memory", "use_device"]' in init
    assert '__all__ += ["cuda_may_be_initialised", "fork_hazard", "mp_context"]' in init


def test_an_update_with_multi_gpu_false_removes_the_helpers(render: Render) -> None:
    # What the CHANGELOG tells a project that does not want them.
    project = render({"multi_gpu": True}, name="multi-dropped")
    committed(project)
    update_project(project, WORKING_TREE_TAG, {"multi_gpu": False})
    assert recorded(project) is False
    assert slice_files(project, [*SLICE_FILES, MULTIPROCESSING]) == []
    assert "from .multi import" not in gpu_init(project)
