"""The real CUDA wheels, on a machine without a GPU or driver.

This machine behaves like a laptop with a broken driver: the wheels install and import, and
CUDA reports cudaErrorInsufficientDriver (35). That is the most realistic fallback test there is,
so rendered projects are installed with the genuine ``cupy-cudaNNx`` and ``numba-cuda[cuNN]``
wheels and must still import, choose NumPy and say why: on the project's minimum Python, and
on the newest Python of the matrix found here, which resolves the newest NumPy and Numba.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import ALL_LIBRARIES, Built, Render, build_and_install, run
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from template_data import load_computed, python_support

pytestmark = pytest.mark.slow

MATRIX = load_computed("cuda_matrix")
MAJORS = sorted(MATRIX["majors"])
# Resolvable from PyPI alone: torch comes from PyTorch's own index, which the test machines lack.
PYPI_LIBRARIES = [lib for lib in ALL_LIBRARIES if lib not in {"torch", "pycuda"}]


def without_extras(requirement: str) -> str:
    """``cupy-cuda12x[ctk]>=14`` -> ``cupy-cuda12x>=14``: the wheel itself, not the toolkit."""
    req = Requirement(requirement)
    return f"{req.name}{req.specifier}"


# Resolve for Linux x86_64 and the oldest floor offered, whatever machine runs the tests.
OLDEST_FLOOR = python_support().choices[0]
UV_COMPILE = [
    *("uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate"),
    *("--python-version", OLDEST_FLOOR, "--python-platform", "x86_64-manylinux_2_28"),
]


def compile_requirements(requirements: list[str], cwd: Path) -> dict[str, str]:
    """Resolve for Linux x86_64 and the oldest floor with uv; return {name: version}."""
    out = run(
        [*UV_COMPILE, "-"],
        cwd=cwd,
        input_text="\n".join(requirements) + "\n",
    )
    pins = dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)", out, flags=re.MULTILINE))
    assert pins, f"uv pip compile printed no pins:\n{out}"
    return pins


CUDA_LINKED = re.compile(r"^(cuda-bindings|cuda-toolkit|nvidia-cuda-(runtime|nvrtc)(-cu\d+)?)$")


def cuda_majors(pins: dict[str, str]) -> set[str]:
    """The CUDA majors that the CUDA-linked pins of a resolution belong to."""
    return {version.split(".")[0] for name, version in pins.items() if CUDA_LINKED.match(name)}


def test_plain_cupy_and_numba_cuda_mix_cuda_majors(tmp_path: Path) -> None:
    # Why the matrix exists: without numba-cuda's [cu12] extra, cupy for CUDA 12 lands beside
    # cuda-bindings 13. If this ever stops failing upstream, the guard is still harmless.
    pins = compile_requirements(["cupy-cuda12x", "numba-cuda"], tmp_path)
    assert pins["cuda-bindings"].startswith("13.")


@pytest.fixture(scope="module")
def every_major(render: Render) -> Path:
    """Every PyPI library on every major: one extra per major."""
    answers = {"gpu_libraries": PYPI_LIBRARIES, "python_min": OLDEST_FLOOR}
    return render(answers, name="resolve-every-major")


@pytest.mark.parametrize("major", MAJORS)
def test_each_gpu_extra_resolves_to_its_own_cuda_major_alone(
    every_major: Path, tmp_path: Path, major: str
) -> None:
    pins = compile_requirements([f"{every_major}[cuda{major}]"], tmp_path)
    assert cuda_majors(pins) == {major}
    other = next(m for m in MAJORS if m != major)
    assert f"cupy-cuda{other}x" not in pins
    assert not any(name.endswith(f"-cu{other}") for name in pins)


def install_into(built: Built) -> list[str]:
    """The uv command that installs into a built project's venv."""
    return ["uv", "pip", "install", "--quiet", "--python", str(built.venv_python)]


def pytest_in(built: Built) -> list[str]:
    """The command that runs pytest in a built project's venv."""
    return [str(built.venv_python), "-m", "pytest", "-p", "no:cacheprovider"]


def newest_python() -> str:
    """The newest Python of the matrix that uv finds on this machine (it downloads none here)."""
    for version in sorted(python_support().versions, key=Version, reverse=True):
        found = subprocess.run(["uv", "python", "find", version], capture_output=True, check=False)
        if found.returncode == 0:
            return str(version)
    pytest.fail(f"uv finds none of the supported Pythons {python_support().versions}")


def with_real_wheels(render: Render, major: str, python: str | None = None) -> Built:
    """A default render for one CUDA major on the oldest Python floor offered (the default floor,
    SPEC 0's, is newer), the real CuPy and Numba wheels in its venv.

    ``python``: the venv's Python, the project's minimum by default.
    """
    answers = {
        "cuda_majors": [int(major)],
        "gpu_libraries": ["cupy", "numba"],
        "python_min": python_support().choices[0],
        "benchmarks": True,  # the import benchmark runs with the real wheels
    }
    name = f"real-{major}" if python is None else f"real-{major}-py{python}"
    built = build_and_install(render(answers, name=name), answers, python=python)
    requirements = MATRIX["majors"][major]["requirements"]
    wheels = [without_extras(requirements["cupy"][0]), *requirements["numba"]]
    run(
        [*install_into(built), *wheels],
        cwd=built.project,
    )
    return built


@pytest.fixture(scope="module")
def newest_python_wheels(render: Render) -> tuple[str, Built]:
    """The newest major's real wheels on the newest Python: what a new user installs today.

    The minimum Python resolves older NumPy and Numba releases than a user of the newest Python
    gets; a warning that only the newest raise (NumPy 2.5's, from numba-cuda-mlir's import)
    stops that user's test run, so the real-wheel tests run there too.
    """
    major = max(MAJORS, key=int)
    return major, with_real_wheels(render, major, newest_python())


# The newest major's wheels on the minimum and the newest Python in the README's tier; each
# older major's in the full tier.
@pytest.fixture(
    scope="module",
    params=[
        *(
            pytest.param(major, marks=() if major == MAJORS[-1] else pytest.mark.full)
            for major in MAJORS
        ),
        "newest-python",
    ],
)
def real_wheels(request: pytest.FixtureRequest, render: Render) -> tuple[str, Built]:
    """Each CUDA major's real wheels on the project's minimum Python, then on the newest."""
    if request.param == "newest-python":
        newest: tuple[str, Built] = request.getfixturevalue("newest_python_wheels")
        return newest
    return request.param, with_real_wheels(render, request.param)


def python_json(built: Built, code: str) -> object:
    return json.loads(run([str(built.venv_python), "-c", code], cwd=built.project.parent))


def installed_versions(built: Built) -> dict[str, str]:
    """{normalised distribution name: version} of everything in a built project's venv."""
    names = python_json(
        built,
        "import json, importlib.metadata as md; "
        "print(json.dumps({d.metadata['Name'].lower(): d.version for d in md.distributions()}))",
    )
    assert isinstance(names, dict)
    return {canonicalize_name(name): version for name, version in names.items()}


def test_the_newest_python_gets_numpy_2_5_and_numba_cuda_mlir(
    newest_python_wheels: tuple[str, Built],
) -> None:
    # What makes the newest-Python run worth its minutes: should the resolution fall back to
    # older releases, this says so instead of silently testing them twice.
    _, built = newest_python_wheels
    names = installed_versions(built)
    assert Version(names["numpy"]) >= Version("2.5")
    assert "numba-cuda-mlir" in names


def test_installed_cuda_wheels_share_the_chosen_major(real_wheels: tuple[str, Built]) -> None:
    major, built = real_wheels
    names = installed_versions(built)
    assert f"cupy-cuda{major}x" in names
    assert cuda_majors(names) == {major}


def test_import_with_real_wheels_loads_no_cuda_library(real_wheels: tuple[str, Built]) -> None:
    _, built = real_wheels
    package = built.answer("package_name")
    # Only what the package adds counts: cuda-bindings' .pth file imports the `cuda` namespace
    # package at interpreter start-up.
    loaded = python_json(
        built,
        "import sys, json; before = set(sys.modules); "
        f"import {package}, {package}.gpu; "
        "new = set(sys.modules) - before; "
        "print(json.dumps(sorted(m for m in new if m.split('.')[0] in ('cupy', 'numba', 'cuda'))))",
    )
    assert loaded == []


def test_real_wheels_without_driver_choose_numpy_and_name_the_driver(
    real_wheels: tuple[str, Built],
) -> None:
    major, built = real_wheels
    package = built.answer("package_name")
    info = python_json(
        built,
        f"import json, {package}.gpu as g; b = g.backend(); "
        "print(json.dumps([b.name, b.reason, g.xp.__name__]))",
    )
    assert isinstance(info, list)
    name, reason, xp = info
    assert (name, xp) == ("numpy", "numpy")
    assert "no NVIDIA driver" in reason
    assert MATRIX["majors"][major]["min_driver_linux"] in reason


def test_real_cupy_reports_insufficient_driver_with_its_code(
    real_wheels: tuple[str, Built],
) -> None:
    # Past the driver-library shortcut: what CuPy itself says on this host, and the major the
    # real CuPy says it is built for (cudaRuntimeGetVersion needs no driver).
    major, built = real_wheels
    package = built.answer("package_name")
    reason = python_json(
        built,
        f"import json; from {package}.gpu import _detect; "
        "print(json.dumps(_detect._probe_cupy().reason))",
    )
    assert isinstance(reason, str)
    assert "cudaErrorInsufficientDriver" in reason
    assert "(CUDA error 35)" in reason
    minimum = MATRIX["majors"][major]["min_driver_linux"]
    assert f"older than CUDA {major} needs (>= {minimum}); upgrade the driver" in reason


def test_import_benchmark_runs_with_cupy_installed(real_wheels: tuple[str, Built]) -> None:
    _, built = real_wheels
    out = run(
        [str(built.venv_python), "benchmarks/import_cost.py", "--runs", "3"], cwd=built.project
    )
    print(out)  # the figures, for `pytest -s`
    assert "CuPy installed" in out
    assert "first is_cuda_available()" in out
    assert "backend: numpy (no NVIDIA driver" in out


def test_generated_tests_pass_with_the_real_wheels(real_wheels: tuple[str, Built]) -> None:
    _, built = real_wheels
    out = run(
        [*pytest_in(built), "-q", "-rs"],
        cwd=built.project,
    )
    assert " passed" in out
    assert " failed" not in out
    assert "needs a CUDA GPU: no NVIDIA driver" in out  # gpu tests skip, saying why


@pytest.fixture(scope="module")
def with_jax(render: Render) -> Built:
    """A render with the JAX option, and JAX's CPU wheels installed (no GPU needed)."""
    answers = {"gpu_libraries": ["cupy", "jax"]}
    built = build_and_install(render(answers, name="jax-cpu"), answers)
    jax = Requirement(MATRIX["majors"]["13"]["requirements"]["jax"][0])
    run(
        [*install_into(built), f"jax{jax.specifier}"],
        cwd=built.project,
    )
    return built


@pytest.mark.full  # a library alone: the full tier's
def test_jax_interop_tests_run_and_pass_on_the_cpu(with_jax: Built) -> None:
    out = run(
        [*pytest_in(with_jax), "-v", "tests/test_dlpack_jax.py"],
        cwd=with_jax.project,
    )
    for test in (
        "test_float64_is_refused_with_the_setting_that_keeps_it",
        "test_float32_round_trip_keeps_dtype_and_every_digit",
        "test_float64_round_trip_with_x64_keeps_dtype_and_every_digit",
        "test_jax_gpu_available_answers_without_raising",
    ):
        assert f"{test} PASSED" in out


@pytest.mark.full  # a library alone: the full tier's
def test_mypy_strict_passes_with_jax_installed(with_jax: Built) -> None:
    # JAX ships type hints: the interop module must satisfy them, not only the stubs-free case.
    out = run([str(with_jax.venv_python), "-m", "mypy", "--no-incremental"], cwd=with_jax.project)
    assert "Success: no issues found" in out


@pytest.fixture(scope="module")
def mixed_install(render: Render) -> Built:
    """What `pip install cupy-cuda12x numba-cuda` gives: CuPy for CUDA 12, cuda-bindings 13."""
    answers = {"cuda_majors": [12]}
    built = build_and_install(render(answers, name="mixed"), answers)
    run([*install_into(built), "cupy-cuda12x", "numba-cuda"], cwd=built.project)
    return built


def doctor_json(built: Built, *args: str) -> tuple[int, dict[str, Any]]:
    """Run the built project's doctor with ``--json``: its exit code and its report."""
    package = built.answer("package_name")
    proc = subprocess.run(
        [str(built.venv_python), "-m", f"{package}.doctor", "--json", *args],
        cwd=built.project.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode in {0, 1}, proc.stderr  # 2 would be a doctor bug
    report: dict[str, Any] = json.loads(proc.stdout)
    return proc.returncode, report


@pytest.mark.parametrize("args", [(), ("--probe",)], ids=["metadata", "probe"])
def test_doctor_finds_no_error_in_the_extra_of_the_chosen_major(
    real_wheels: tuple[str, Built], args: tuple[str, ...]
) -> None:
    # --probe imports the real CuPy and cuda.bindings, which must fail into findings here.
    _, built = real_wheels
    code, report = doctor_json(built, *args)
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert (code, errors) == (0, [])
    assert "numpy-fallback" in {f["code"] for f in report["findings"]}
    assert report["decision"]["backend"] == "numpy"


def test_doctor_reports_the_real_mixed_install_and_exits_1(mixed_install: Built) -> None:
    code, report = doctor_json(mixed_install)
    assert code == 1
    codes = {f["code"] for f in report["findings"]}
    assert "mixed-cuda-majors" in codes
    mixed = next(f for f in report["findings"] if f["code"] == "mixed-cuda-majors")
    assert "CUDA 12: cupy-cuda12x" in mixed["seen"]
    assert "cuda-bindings 13." in mixed["seen"]
    assert report["driver"]["version"] is None  # no driver on this machine, and it says so


def test_doctor_console_script_is_installed(mixed_install: Built) -> None:
    script = (
        mixed_install.venv_python.parent / f"{mixed_install.answer('distribution_name')}-doctor"
    )
    proc = subprocess.run([str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert "mixed-cuda-majors" in proc.stdout
