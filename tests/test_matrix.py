"""The CUDA matrix in includes/cuda-matrix.yml is the only source of every rendered CUDA fact."""

from __future__ import annotations

import re
import runpy
from pathlib import Path
from typing import Any

import pytest
from conftest import ALL_LIBRARIES, Render, pyproject
from packaging.requirements import Requirement
from packaging.version import Version
from template_data import load_computed, python_support

MATRIX: dict[str, Any] = load_computed("cuda_matrix")
# Every CPython release of the table, supported or not: a library's own floor is one of them.
RELEASED = [row["version"] for row in load_computed("python_releases")["releases"]]
MAJORS = sorted(MATRIX["majors"], key=int)


@pytest.fixture(scope="module", params=[*MAJORS, "all"])
def full_render(request: pytest.FixtureRequest, render: Render) -> tuple[list[str], Path]:
    """Every library, Docker and GitHub CI, for one CUDA major and for all together."""
    majors = MAJORS if request.param == "all" else [request.param]
    answers = {
        "cuda_majors": [int(major) for major in majors],
        "gpu_libraries": ALL_LIBRARIES,
        "python_min": "3.11",
        "docker": True,
        "ci": "github",
    }
    return majors, render(answers, name=f"matrix-{request.param}")


def test_every_requirement_in_the_matrix_parses() -> None:
    for major in MAJORS:
        entry = MATRIX["majors"][major]
        for reqs in entry["requirements"].values():
            for req in reqs:
                Requirement(req)
        for req in entry["guard_requirements"]:
            Requirement(req)


def test_every_major_offers_every_library_and_names_only_floors_above_the_stacks() -> None:
    # A floor the stack's oldest Python already meets says nothing: the matrix leaves it out.
    oldest = Version(MATRIX["python_range"]["oldest"])
    for major in MAJORS:
        entry = MATRIX["majors"][major]
        assert sorted(entry["requirements"]) == sorted(ALL_LIBRARIES)
        assert set(entry["python_min"]) <= set(ALL_LIBRARIES)
        for floor in [*entry["python_min"].values(), entry["dask"].get("python_min")]:
            assert floor is None or (floor in RELEASED and Version(floor) > oldest), floor


def test_every_major_installs_numba_cuda_mlir_on_every_python_offered() -> None:
    # No environment marker: the fallback to numba-cuda served Python 3.10 alone.
    for major in MAJORS:
        numba = [Requirement(req) for req in MATRIX["majors"][major]["requirements"]["numba"]]
        assert [(req.name, req.extras, req.marker) for req in numba] == [
            ("numba-cuda-mlir", {f"cu{major}"}, None)
        ]


def test_cuda_wheels_name_their_own_major() -> None:
    # cupy-cudaNNx, numba-cuda[cuNN], cuda-toolkit==NN.*: a wheel of the other major in an entry
    # is exactly the mixed install the matrix exists to prevent.
    for major in MAJORS:
        entry = MATRIX["majors"][major]
        text = " ".join(r for reqs in entry["requirements"].values() for r in reqs)
        assert f"cupy-cuda{major}x" in text
        assert f"numba-cuda-mlir[cu{major}]" in text
        for other in MAJORS:
            if other != major:
                assert f"cuda{other}" not in text
                assert f"cu{other}]" not in text
        assert f"cuda-toolkit=={major}.*" in entry["guard_requirements"]
        assert entry["image"].startswith(f"nvidia/cuda:{major}.")
        assert re.fullmatch(r"nvidia/cuda:[0-9.]+-base-ubuntu\d\d\.04", entry["image"])
        assert entry["torch_index_tag"].startswith(major)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@pytest.mark.parametrize("major", MAJORS)
def test_each_image_runs_on_the_driver_the_matrix_states(major: str) -> None:
    # An nvidia/cuda image sets NVIDIA_REQUIRE_CUDA=cuda>=X.Y from its tag, and the NVIDIA
    # Container Toolkit refuses to start it where the driver supports less; the README, the
    # Dockerfile and the doctor state min_driver_linux, which supports min_driver_cuda.
    entry = MATRIX["majors"][major]
    tag = re.fullmatch(r"nvidia/cuda:(\d+)\.(\d+)\.\d+-.+", entry["image"])
    assert tag, entry["image"]
    requires = (int(tag[1]), int(tag[2]))
    supported = _release(entry["min_driver_cuda"])
    assert supported[0] == int(major)
    assert requires <= supported, (
        f"{entry['image']} requires cuda>={tag[1]}.{tag[2]}, but min_driver_linux "
        f"{entry['min_driver_linux']} supports CUDA {entry['min_driver_cuda']}: use a "
        f"{entry['min_driver_cuda']}.x image, or raise both driver facts together"
    )


def test_the_stated_drivers_grow_with_the_cuda_they_support() -> None:
    # A driver that supports a newer CUDA is a newer driver: two facts typed apart stay in order.
    by_cuda = sorted(
        (_release(entry["min_driver_cuda"]), _release(entry["min_driver_linux"]))
        for entry in MATRIX["majors"].values()
    )
    drivers = [driver for _, driver in by_cuda]
    assert drivers == sorted(drivers)


def test_each_extra_holds_exactly_the_matrix_requirements_of_the_chosen_libraries(
    full_render: tuple[list[str], Path],
) -> None:
    majors, project = full_render
    extras = pyproject(project)["project"]["optional-dependencies"]
    # A library marked own_extra (PyCUDA builds from source) gets an extra named after it.
    own = [lib for lib in ALL_LIBRARIES if MATRIX["libraries"][lib]["own_extra"]]
    expected = {}
    for major in majors:
        entry = MATRIX["majors"][major]
        wheels = [r for lib in ALL_LIBRARIES if lib not in own for r in entry["requirements"][lib]]
        expected[f"cuda{major}"] = wheels + entry["guard_requirements"]
    newest = MATRIX["majors"][majors[-1]]
    assert extras == {**expected, **{lib: newest["requirements"][lib] for lib in own}}


def test_the_extras_conflict_in_uv_exactly_when_there_are_several(
    full_render: tuple[list[str], Path],
) -> None:
    majors, project = full_render
    conflicts = pyproject(project)["tool"]["uv"].get("conflicts")
    if len(majors) == 1:
        assert conflicts is None
    else:
        assert conflicts == [[{"extra": f"cuda{major}"} for major in majors]]


def test_extra_lists_only_selected_libraries(render: Render) -> None:
    major = MAJORS[0]
    project = render({"cuda_majors": [int(major)], "gpu_libraries": ["numba"]}, name="numba-only")
    extra = pyproject(project)["project"]["optional-dependencies"][f"cuda{major}"]
    entry = MATRIX["majors"][major]
    assert extra == entry["requirements"]["numba"] + entry["guard_requirements"]


def test_no_library_means_no_gpu_extra(render: Render) -> None:
    project = render({"gpu_libraries": []}, name="no-extra")
    assert "optional-dependencies" not in pyproject(project)["project"]


def test_classifiers_list_the_supported_pythons_from_the_floor(render: Render) -> None:
    floor = python_support().choices[-1]
    project = render({"python_min": floor}, name="newest-floor")
    classifiers = pyproject(project)["project"]["classifiers"]
    listed = [c.rsplit(" ", 1)[1] for c in classifiers if re.fullmatch(r".*Python :: 3\.\d+", c)]
    versions = python_support().versions
    assert listed == versions[versions.index(floor) :]


def test_torch_comes_from_the_pytorch_index_of_each_extras_major(
    full_render: tuple[list[str], Path],
) -> None:
    majors, project = full_render
    tags = {major: MATRIX["majors"][major]["torch_index_tag"] for major in majors}
    uv = pyproject(project)["tool"]["uv"]
    assert uv["index"] == [
        {
            "name": f"pytorch-cu{tag}",
            "url": f"https://download.pytorch.org/whl/cu{tag}",
            "explicit": True,
        }
        for tag in tags.values()
    ]
    assert uv["sources"]["torch"] == [
        {"index": f"pytorch-cu{tag}", "extra": f"cuda{major}"} for major, tag in tags.items()
    ]


def test_generated_code_carries_the_matrix_drivers(full_render: tuple[list[str], Path]) -> None:
    majors, project = full_render
    newest = majors[-1]
    facts = runpy.run_path(str(project / "src" / "my_gpu_project" / "gpu" / "_project.py"))
    assert facts["CUDA_MAJORS"] == tuple(int(major) for major in majors)
    assert facts["CUDA_MAJOR"] == int(newest)
    assert facts["MIN_DRIVER"] == MATRIX["majors"][newest]["min_driver_linux"]
    assert facts["MIN_DRIVER_BY_MAJOR"] == {
        int(each): entry["min_driver_linux"] for each, entry in MATRIX["majors"].items()
    }
    assert facts["GPU_EXTRAS"] == {int(major): f"cuda{major}" for major in majors}
    assert facts["GPU_EXTRA"] == f"cuda{newest}"
    assert facts["MIN_COMPUTE_CAPABILITY_BY_MAJOR"] == {
        int(each): tuple(map(int, entry["min_compute_capability"].split(".")))
        for each, entry in MATRIX["majors"].items()
    }


def test_dockerfile_has_a_stage_per_major_on_its_matrix_image(
    full_render: tuple[list[str], Path],
) -> None:
    majors, project = full_render
    dockerfile = (project / "Dockerfile").read_text("utf-8")
    stages = re.findall(r"^FROM (\S+) AS (cuda\d+)-base$", dockerfile, flags=re.MULTILINE)
    assert stages == [(MATRIX["majors"][major]["image"], f"cuda{major}") for major in majors]
    assert f"\nARG CUDA_MAJOR={majors[-1]}\n" in dockerfile  # the newest by default
    assert (
        dockerfile.count("FROM cuda${CUDA_MAJOR}-base") == 2
    )  # build and run stages share the base
    assert '--locked --no-dev --no-editable --extra "cuda${CUDA_MAJOR}"' in dockerfile
    for major in majors:
        entry = MATRIX["majors"][major]
        driver = f"CUDA {major}: driver >= {entry['min_driver_linux']}, which supports CUDA"
        assert f"{driver} {entry['min_driver_cuda']}\n" in dockerfile


def test_readme_has_a_line_per_major_with_its_driver_and_toolkit_range(
    full_render: tuple[list[str], Path],
) -> None:
    majors, project = full_render
    readme = (project / "README.md").read_text("utf-8")
    for major in majors:
        entry = MATRIX["majors"][major]
        assert (
            f"| >= {entry['min_driver_linux']} | {entry['toolkit_range']} | "
            f'`pip install "my-gpu-project[cuda{major}]"` |'
        ) in readme
        assert f"`cu{entry['torch_index_tag']}` for CUDA {major}" in readme
    newest = MATRIX["majors"][majors[-1]]
    for req in newest["guard_requirements"][:1] + newest["requirements"]["numba"]:
        assert f"`{req}`" in readme


# A version that starts with one of the matrix's majors: 12.9, 13.0.2, ...
CUDA_VERSION = re.compile(rf"(?<![\w.])(?:{'|'.join(MAJORS)})\.\d+(?:\.\d+)*")

# Where pins live: packaging, environments, images, CI and what users read first.
PIN_FILES = ("pyproject.toml", "noxfile.py", "Dockerfile", "compose.yaml", "README.md", ".github")


def test_no_pin_file_names_a_cuda_version_the_matrix_does_not(
    full_render: tuple[list[str], Path],
) -> None:
    # A hand-typed version in any of these would drift from the matrix on the next bump.
    majors, project = full_render
    entries = str([MATRIX["majors"][major] for major in majors])
    allowed = set(re.findall(r"\d+\.\d+(?:\.\d+)*", entries)) | set(python_support().versions)
    paths = [p for name in PIN_FILES for p in [project / name, *(project / name).rglob("*")]]
    for path in paths:
        if not path.is_file():
            continue
        for line in path.read_text("utf-8").splitlines():
            if "cuda" not in line.lower():
                continue
            for version in CUDA_VERSION.findall(line):
                assert version in allowed, f"{path.name}: {line.strip()}"
