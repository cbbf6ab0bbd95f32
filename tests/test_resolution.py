"""The GPU extra resolves on every Python it supports, with the newest NumPy where it can.

Resolution only (uv pip compile against the package index, for Linux x86_64): nothing is
installed. PyTorch is left out because it comes from PyTorch's own index.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ALL_LIBRARIES, MAJORS, Render, run
from packaging.version import Version

PYPI_LIBRARIES = [lib for lib in ALL_LIBRARIES if lib != "torch"]
FLOOR_LIBRARIES = [lib for lib in PYPI_LIBRARIES if lib != "jax"]  # JAX needs Python >= 3.11


def resolve(requirement: str, python: str, cwd: Path) -> dict[str, str]:
    """Resolve ``requirement`` for ``python`` on Linux x86_64; return {name: version}."""
    out = run(
        [
            *("uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate"),
            *("--python-version", python, "--python-platform", "x86_64-manylinux_2_28", "-"),
        ],
        cwd=cwd,
        input_text=requirement + "\n",
    )
    pins = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", out, flags=re.MULTILINE))
    assert pins, out
    return pins


@pytest.mark.slow
@pytest.mark.parametrize("major", MAJORS)
def test_gpu_extra_takes_numpy_2_5_and_numba_cuda_mlir_on_python_3_12(
    major: int, render: Render, tmp_path: Path
) -> None:
    answers = {"cuda_majors": [major], "gpu_libraries": PYPI_LIBRARIES, "python_min": "3.11"}
    project = render(answers, name=f"resolve-312-{major}")
    pins = resolve(f"{project}[cuda{major}]", "3.12", tmp_path)
    assert Version(pins["numpy"]) >= Version("2.5")
    assert "numba-cuda-mlir" in pins
    assert "numba-cuda" not in pins


@pytest.mark.slow
@pytest.mark.parametrize("major", MAJORS)
def test_gpu_extra_resolves_on_the_python_3_10_floor_with_numba_cuda(
    major: int, render: Render, tmp_path: Path
) -> None:
    answers = {"cuda_majors": [major], "gpu_libraries": FLOOR_LIBRARIES, "python_min": "3.10"}
    project = render(answers, name=f"resolve-310-{major}")
    pins = resolve(f"{project}[cuda{major}]", "3.10", tmp_path)
    assert "numba-cuda" in pins
    assert "numba-cuda-mlir" not in pins
    assert Version(pins["numpy"]) < Version("2.5")
    assert pins["cuda-bindings"].split(".")[0] == str(major)


@pytest.mark.slow
def test_a_torch_project_locks_with_its_index_pointed_at_a_mirror_as_the_readme_says(
    render: Render,
) -> None:
    # PyPI stands in for the user's mirror: this machine reaches PyPI and not PyTorch's index.
    project = render({"gpu_libraries": ["cupy", "torch"]}, name="torch-mirror")
    readme = (project / "README.md").read_text("utf-8")
    command = re.search(r"`UV_INDEX=(\S+)=<mirror URL> uv lock`", readme)
    assert command is not None, "the README no longer says how to lock behind a PyPI mirror"
    env = {"UV_INDEX": f"{command.group(1)}=https://pypi.org/simple"}
    run(["uv", "lock", "--quiet"], cwd=project, env=env)
    lock = (project / "uv.lock").read_text("utf-8")
    assert 'name = "torch"' in lock
    assert "download.pytorch.org" not in lock
