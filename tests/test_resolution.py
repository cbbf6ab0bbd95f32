"""The GPU extra resolves on every Python it supports, with the newest NumPy where it can.

Resolution only (uv pip compile against the package index, for Linux x86_64): nothing is
installed. PyTorch is left out because it comes from PyTorch's own index.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from conftest import ALL_LIBRARIES, MAJORS, Render, run
from packaging.version import Version
from template_data import load_computed, python_floors, python_support

MATRIX = load_computed("cuda_matrix")
PYPI_LIBRARIES = [lib for lib in ALL_LIBRARIES if lib != "torch"]


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
@pytest.mark.parametrize("python", python_support().choices)
@pytest.mark.parametrize("major", MAJORS)
def test_gpu_extra_resolves_on_every_python_floor_offered(
    major: int, python: str, render: Render, tmp_path: Path
) -> None:
    # No python_min is offered that the GPU stack cannot install: on each floor, every library
    # whose own floor allows it, with the maintained Numba target and the major's own bindings.
    floors = python_floors(MATRIX, str(major))
    libraries = [lib for lib in PYPI_LIBRARIES if Version(floors[lib]) <= Version(python)]
    assert "cuda-python" in libraries
    answers = {"cuda_majors": [major], "gpu_libraries": libraries, "python_min": python}
    project = render(answers, name=f"resolve-{python}-{major}")
    pins = resolve(f"{project}[cuda{major}]", python, tmp_path)
    assert "numba-cuda-mlir" in pins
    assert pins["cuda-bindings"].split(".")[0] == str(major)


@pytest.fixture(scope="module")
def all_majors_lock(render: Render) -> Path:
    """Every library on every major, locked as the README says to behind a PyPI-only mirror.

    PyPI stands in for the user's mirror: this machine reaches PyPI and not PyTorch's index.
    """
    project = render({"gpu_libraries": ALL_LIBRARIES, "python_min": "3.11"}, name="lock-all")
    readme = (project / "README.md").read_text("utf-8")
    command = re.search(r'`UV_INDEX="([^"]+)" uv lock`', readme)
    assert command is not None, "the README no longer says how to lock behind a PyPI mirror"
    env = {"UV_INDEX": command.group(1).replace("<mirror URL>", "https://pypi.org/simple")}
    run(["uv", "lock", "--quiet"], cwd=project, env=env)
    return project


def locked_versions(project: Path) -> dict[str, set[str]]:
    """Every version uv.lock holds of each package (one per extra where the majors differ)."""
    lock = tomllib.loads((project / "uv.lock").read_text("utf-8"))
    versions: dict[str, set[str]] = {}
    for package in lock["package"]:
        versions.setdefault(package["name"], set()).add(package.get("version", ""))
    return versions


@pytest.mark.slow
def test_an_all_majors_all_libraries_render_locks_every_extra_with_uv(
    all_majors_lock: Path,
) -> None:
    lock = tomllib.loads((all_majors_lock / "uv.lock").read_text("utf-8"))
    assert lock["conflicts"] == [
        [{"package": "my-gpu-project", "extra": f"cuda{major}"} for major in MAJORS]
    ]
    versions = locked_versions(all_majors_lock)
    for major in MAJORS:
        assert f"cupy-cuda{major}x" in versions
        for name in ("cuda-bindings", "cuda-toolkit"):
            assert any(v.startswith(f"{major}.") for v in versions[name]), (name, major)
    assert "torch" in versions
    assert "download.pytorch.org" not in (all_majors_lock / "uv.lock").read_text("utf-8")


@pytest.fixture(scope="module")
def small_all_majors_lock(render: Render) -> Path:
    """Every major with the smallest GPU stack (cuda-python's), locked: cheap to install."""
    project = render({"gpu_libraries": ["cuda-python"]}, name="lock-small")
    run(["uv", "lock", "--quiet"], cwd=project)
    return project


@pytest.mark.slow
@pytest.mark.parametrize("major", MAJORS)
def test_each_extra_of_an_all_majors_lock_installs_alone_with_its_own_major(
    small_all_majors_lock: Path, major: int, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    run(
        ["uv", "sync", "--locked", "--quiet", "--no-default-groups", "--extra", f"cuda{major}"],
        cwd=small_all_majors_lock,
        env={"UV_PROJECT_ENVIRONMENT": str(venv)},
    )
    code = (
        "from importlib.metadata import version as v; print(v('cuda-bindings'), v('cuda-toolkit'))"
    )
    installed = run([str(venv / "bin" / "python"), "-c", code], cwd=tmp_path).split()
    assert [v.split(".")[0] for v in installed] == [str(major)] * 2


@pytest.mark.slow
def test_two_extras_of_an_all_majors_lock_are_refused_together_by_name(
    small_all_majors_lock: Path, tmp_path: Path
) -> None:
    extras = [arg for major in MAJORS for arg in ("--extra", f"cuda{major}")]
    proc = subprocess.run(
        ["uv", "sync", "--locked", *extras],
        cwd=small_all_majors_lock,
        env={**os.environ, "UV_PROJECT_ENVIRONMENT": str(tmp_path / "venv")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode != 0
    assert "are incompatible with the declared conflicts" in proc.stderr
    # Refused before anything was installed (uv may have made the empty venv).
    assert not list((tmp_path / "venv").glob("lib/python*/site-packages/cuda*"))
