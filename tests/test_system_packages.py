"""What the images install from the system and where CI runs, for what the options need.

Numba's parallel CPU kernels need libgomp in the GPU image; the compiled extension needs a C++
compiler (and, for a major whose toolkit wheels carry no nvcc, NVIDIA's apt nvcc) wherever
`uv sync` builds it, the dev container included; and its tests run where nvcc can build it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import MAJORS, OLDEST_MAJOR, Render, run, tool
from template_data import load_computed

MATRIX = load_computed("cuda_matrix")
RENDERS: dict[str, dict[str, Any]] = {
    "numba-and-extension": {
        "gpu_libraries": ["cupy", "numba"],
        "extension": "cuda-cpp",
        "devcontainer": True,
    },
    "extension-on-the-oldest-major": {
        "gpu_libraries": ["cupy"],
        "extension": "cuda-cpp",
        "devcontainer": True,
        "cuda_majors": [OLDEST_MAJOR],
    },
    "cupy-alone": {"gpu_libraries": ["cupy"], "devcontainer": True},
}


@pytest.fixture(scope="module", params=sorted(RENDERS))
def rendered(request: pytest.FixtureRequest, render: Render) -> tuple[dict[str, Any], Path]:
    answers = RENDERS[request.param]
    return answers, render(answers, name=f"system-{request.param}")


def apt_packages(dockerfile: str) -> list[str]:
    """The packages of every ``apt-get install`` line."""
    marker = "apt-get install -y --no-install-recommends "
    return [
        package
        for line in dockerfile.splitlines()
        if marker in line
        for package in line.split(marker, 1)[1].rstrip("\\ ").split()
    ]


def test_the_gpu_image_has_libgomp_where_numba_runs_its_cpu_kernels(
    rendered: tuple[dict[str, Any], Path],
) -> None:
    answers, project = rendered
    final_stage = (
        (project / "Dockerfile").read_text("utf-8").split("\nFROM cuda${CUDA_MAJOR}-base\n")
    )
    assert len(final_stage) == 2
    assert ("libgomp1" in apt_packages(final_stage[1])) == ("numba" in answers["gpu_libraries"])


def test_the_dev_container_has_what_uv_sync_builds_the_extension_with(
    rendered: tuple[dict[str, Any], Path],
) -> None:
    answers, project = rendered
    dockerfile = (project / ".devcontainer" / "Dockerfile").read_text("utf-8")
    newest = max(answers.get("cuda_majors", MAJORS))
    facts = MATRIX["majors"][str(newest)]["extension"]
    packages = apt_packages(dockerfile)
    if answers.get("extension") == "cuda-cpp":
        assert {"g++", *facts["docker_toolkit"]} <= set(packages)
        assert ("ENV CUDACXX=" in dockerfile) == bool(facts["docker_nvcc"])
    else:
        assert "g++" not in packages
    assert ("libgomp1" in packages) == ("numba" in answers["gpu_libraries"])


def test_both_images_pass_hadolint(rendered: tuple[dict[str, Any], Path]) -> None:
    _, project = rendered
    for dockerfile in ("Dockerfile", ".devcontainer/Dockerfile"):
        run([tool("hadolint"), "--failure-threshold", "style", dockerfile], cwd=project)


def test_the_extensions_tests_run_on_linux_alone(rendered: tuple[dict[str, Any], Path]) -> None:
    answers, project = rendered
    workflow = yaml.safe_load((project / ".github/workflows/ci.yml").read_text("utf-8"))
    systems = workflow["jobs"]["tests"]["strategy"]["matrix"]["os"]
    if answers.get("extension") == "cuda-cpp":
        assert systems == ["ubuntu-latest"]
    else:
        assert systems == ["ubuntu-latest", "macos-latest", "windows-latest"]
