"""The dask option: the files it brings, and its requirements read from the matrix and the pins.

Rendering only. The generated scale-out tests (a real local cluster) run in the build suite.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from conftest import ALL_LIBRARIES, MAJORS, WORKING_TREE_TAG, Render, copy_template, pyproject
from packaging.requirements import Requirement
from packaging.version import Version
from template_data import load_computed, python_floors, python_support, questions
from test_docs import public_modules, toctree_entries

MATRIX: dict[str, Any] = load_computed("cuda_matrix")
RELEASED = [row["version"] for row in load_computed("python_releases")["releases"]]
PINS: dict[str, Any] = load_computed("pins")
PACKAGE = "my_gpu_project"
# What the option brings, as a rendered project has it.
DASK_FILES = [
    f"src/{PACKAGE}/scale/__init__.py",
    f"src/{PACKAGE}/scale/_chunked.py",
    f"src/{PACKAGE}/scale/_cluster.py",
    "tests/test_scale.py",
    "benchmarks/scale_out.py",
    "docs/scale-out.md",
]


@pytest.fixture(scope="module", params=[True, False], ids=["dask", "no-dask"])
def dask_render(request: pytest.FixtureRequest, render: Render) -> tuple[bool, Path]:
    """CuPy, the docs site and the benchmarks (scale_out.py is a row of both), with and without
    the option."""
    answers = {
        "dask": request.param,
        "gpu_libraries": ["cupy"],
        "docs": "sphinx",
        "benchmarks": True,
    }
    return request.param, render(answers, name=f"dask-{request.param}")


def test_the_option_is_off_by_default() -> None:
    assert questions()["dask"]["default"] is False


def test_the_scale_out_files_follow_the_answer(dask_render: tuple[bool, Path]) -> None:
    dask, project = dask_render
    assert {name: (project / name).is_file() for name in DASK_FILES} == dict.fromkeys(
        DASK_FILES, dask
    )


def test_the_docs_toctree_lists_the_scale_out_page_with_the_option(
    dask_render: tuple[bool, Path],
) -> None:
    dask, project = dask_render
    index = (project / "docs" / "index.md").read_text("utf-8")
    assert ("scale-out" in toctree_entries(index)) == dask


def test_the_scale_module_is_public_exactly_with_the_option(
    dask_render: tuple[bool, Path],
) -> None:
    # The API reference generates a page for every public module (test_docs.py builds it), so
    # the scale module is documented exactly when it is in the package.
    dask, project = dask_render
    assert ("my_gpu_project.scale" in public_modules(project)) == dask


def test_the_dask_extra_and_the_test_group_hold_the_cpu_pins(
    dask_render: tuple[bool, Path],
) -> None:
    dask, project = dask_render
    data = pyproject(project)
    extra = data["project"]["optional-dependencies"].get("dask")
    tests = data["dependency-groups"]["test"]
    if dask:
        assert (extra, tests[-len(PINS["dask"]) :]) == (PINS["dask"], PINS["dask"])
    else:
        assert (extra, [req for req in tests if "dask" in req]) == (None, [])


def test_the_option_renders_python_that_parses_beside_every_library(render: Render) -> None:
    answers = {
        "dask": True,
        "gpu_libraries": ALL_LIBRARIES,
        "python_min": "3.12",
        "benchmarks": True,
    }
    project = render(answers, name="dask-all-libraries")
    parsed = [
        ast.parse((project / name).read_text("utf-8"), filename=name)
        for name in DASK_FILES
        if name.endswith(".py")
    ]
    assert len(parsed) == 5


@pytest.mark.parametrize("major", MAJORS)
def test_the_gpu_extra_pins_dask_cuda_of_the_chosen_major_from_the_matrix(
    major: int, render: Render
) -> None:
    answers = {"cuda_majors": [major], "dask": True, "gpu_libraries": ["cupy"]}
    project = render(answers, name=f"dask-cuda{major}")
    extra = pyproject(project)["project"]["optional-dependencies"][f"cuda{major}"]
    expected = MATRIX["majors"][str(major)]["dask"]["requirements"]
    assert [req for req in extra if Requirement(req).name == "dask-cuda"] == expected


def test_every_major_names_dask_cuda_for_its_own_cuda_major() -> None:
    for major, entry in MATRIX["majors"].items():
        requirements = [Requirement(req) for req in entry["dask"]["requirements"]]
        assert [(req.name, req.extras) for req in requirements] == [("dask-cuda", {f"cu{major}"})]
        assert entry["dask"].get("python_min", MATRIX["python_range"]["oldest"]) in RELEASED


def test_without_gpu_libraries_the_option_brings_only_the_cpu_extra(render: Render) -> None:
    project = render({"dask": True, "gpu_libraries": [], "docs": "none"}, name="dask-cpu-only")
    assert pyproject(project)["project"]["optional-dependencies"] == {"dask": PINS["dask"]}


def test_a_python_floor_below_dask_cudas_is_refused_with_the_fix(
    template_repo: Path, tmp_path: Path
) -> None:
    floor = python_floors(MATRIX, str(MAJORS[-1]))["dask"]
    older = [v for v in python_support().choices if Version(v) < Version(floor)]
    if not older:
        pytest.skip(f"no python_min below dask-cuda's {floor} is offered: nothing to refuse")
    answers = {"dask": True, "gpu_libraries": ["cupy"], "python_min": older[-1]}
    with pytest.raises(ValueError, match="Validation error") as refused:
        copy_template(template_repo, tmp_path / "refused", answers, WORKING_TREE_TAG)
    assert f"Raise python_min to {floor} or answer no to dask" in " ".join(
        str(refused.value).split()
    )


def test_the_cpu_half_has_no_python_floor_of_its_own(template_repo: Path, tmp_path: Path) -> None:
    oldest = python_support().choices[0]
    answers = {"dask": True, "gpu_libraries": [], "python_min": oldest, "docs": "none"}
    project = copy_template(template_repo, tmp_path / "oldest", answers, WORKING_TREE_TAG)
    assert (project / "src" / PACKAGE / "scale" / "__init__.py").is_file()


def test_a_dask_project_without_kernels_keeps_the_helpers_its_large_test_imports(
    render: Render,
) -> None:
    answers = {"gpu_libraries": ["torch", "jax"], "dask": True, "deep_checks": True}
    project = render(answers, name="dask-no-kernels")
    assert (project / "tests" / "test_large_scale.py").is_file()
    assert (project / "tests" / "large_arrays.py").is_file()
