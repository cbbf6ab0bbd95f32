"""The kernels a render ships: CPU paths, the Numba kernels under the CUDA simulator, PTX and NVRTC
compiles without a GPU, the CUDA C file in the wheel, and the kernel benchmark.

Renders with ``gpu_libraries = [cupy, numba, cuda-python, pycuda]`` for CUDA 13 (other answers
default), builds and installs it (CPU install), then adds the matrix's numba-cuda requirement,
whose [cu13] extra brings NVVM, NVRTC and cuda-bindings: everything but a driver.
"""

from __future__ import annotations

import re
import zipfile

import pytest
from conftest import (
    ALL_EXAMPLES,
    ALL_LIBRARIES,
    MAJORS,
    Built,
    Render,
    build_and_install,
    run,
    run_pytest_of,
)
from template_data import load_computed

pytestmark = pytest.mark.slow

MATRIX = load_computed("cuda_matrix")
# Every library that launches the package's kernels, on the newest major.
NEWEST = MAJORS[-1]
ANSWERS = {
    "cuda_majors": [NEWEST],
    "gpu_libraries": [lib for lib in ALL_LIBRARIES if MATRIX["libraries"][lib]["kernels"]],
    "examples": ALL_EXAMPLES,
    "benchmarks": True,
    "deep_checks": True,
}
# The kernel tests that need neither numba-cuda nor a GPU: CPU paths, argument checks, launch
# sizes, the benchmark's timing rules, and the PyCUDA and cuda.core routes against fakes.
CPU_KERNEL_TESTS = [
    "tests/test_kernels_numba.py",
    "tests/test_kernels_cupy.py",
    "tests/test_kernels_checks.py",
    "tests/test_kernels_launch.py",
    "tests/test_kernels_pycuda.py",
    "tests/test_kernels_cuda_core.py",
    "tests/test_kernels_benchmark.py",
]

# The PTX checks of the Numba kernels: axpy's, and each worked example's in a file of its own.
NUMBA_PTX_TESTS = [
    "tests/test_kernels_numba_ptx.py",
    *(f"tests/test_kernels_numba_{example}_ptx.py" for example in ALL_EXAMPLES),
]


def passed(out: str) -> int:
    found = re.search(r"(\d+) passed", out)
    return int(found.group(1)) if found else 0


@pytest.fixture(scope="module")
def kernels_project(render_suite: Render) -> tuple[Built, str]:
    """The render installed twice over: first CPU only (its kernel tests run then), then with
    numba-cuda added. Returns the project and the output of the CPU-only kernel tests."""
    # With the owned code's tests: the checks, launch sizes and benchmark rules are among them.
    built = build_and_install(render_suite(ANSWERS, name="kernels"), ANSWERS)
    cpu_out = run_pytest_of(built, "-q", *CPU_KERNEL_TESTS)
    # The simulator's numba-cuda, as the generated tests_sim session installs it.
    numba_cuda = MATRIX["majors"][str(NEWEST)]["simulator"]
    run(
        ["uv", "pip", "install", "--quiet", "--python", str(built.venv_python), *numba_cuda],
        cwd=built.project,
    )
    return built, cpu_out


def test_cpu_paths_pass_on_a_cpu_install(kernels_project: tuple[Built, str]) -> None:
    _, out = kernels_project
    assert passed(out) >= 120
    assert " failed" not in out


def test_cuda_source_ships_in_the_wheel(kernels_project: tuple[Built, str]) -> None:
    built, _ = kernels_project
    package = built.answer("package_name")
    names = zipfile.ZipFile(built.wheel).namelist()
    assert f"{package}/kernels/laplacian.cu" in names


def test_numba_kernels_pass_under_the_cuda_simulator(kernels_project: tuple[Built, str]) -> None:
    built, _ = kernels_project
    out = run_pytest_of(built, "-q", "-m", "cudasim", sim=True)
    assert passed(out) >= 30
    assert "test_kernels_numba_cudasim.py" not in out  # not named: nothing skipped or failed


def test_simulated_laplacian_covers_rows_beyond_a_capped_grid(
    kernels_project: tuple[Built, str],
) -> None:
    built, _ = kernels_project
    out = run_pytest_of(
        built,
        "-v",
        "-m",
        "cudasim",
        "-k",
        "capped_grid",
        "tests/test_kernels_numba_stencil_cudasim.py",
        sim=True,
    )
    assert out.count("test_laplacian_kernel_covers_rows_beyond_a_capped_grid[") == 2
    assert out.count(" PASSED") == 2


# The fixture's simulator install brings numba-cuda-mlir too, so these files compile with it: the
# tests tier runs them again, in the same venv, in
# test_numba_kernels_compile_to_sound_ptx_with_numba_cuda_mlir below, with the target tests.
@pytest.mark.full
def test_numba_kernels_compile_to_ptx_without_a_gpu(kernels_project: tuple[Built, str]) -> None:
    built, _ = kernels_project
    out = run_pytest_of(built, "-q", *NUMBA_PTX_TESTS)
    assert passed(out) >= 6
    assert "skipped" not in out


def test_cuda_source_compiles_with_nvrtc_without_a_gpu(kernels_project: tuple[Built, str]) -> None:
    built, _ = kernels_project
    out = run_pytest_of(
        built,
        "-v",
        "tests/test_kernels_cuda_source.py",
        "tests/test_kernels_cuda_source_ptx.py",
        "tests/test_kernels_cuda_source_edges.py",
    )
    assert "test_cuda_source_compiles_to_ptx_with_nvrtc PASSED" in out
    # The PTX's index arithmetic is checked with the NVRTC the project ships, not skipped.
    assert "test_no_kernel_adds_or_multiplies_in_32_bits[laplacian_5pt_f32] PASSED" in out
    assert "SKIPPED" not in out


def test_gpu_kernel_tests_skip_with_the_reason(kernels_project: tuple[Built, str]) -> None:
    built, _ = kernels_project
    out = run_pytest_of(built, "-q", "-m", "gpu", "tests/test_kernels_cupy.py")
    assert "needs a CUDA GPU: no NVIDIA driver" in out


def test_kernel_benchmark_prints_its_table(kernels_project: tuple[Built, str]) -> None:
    built, _ = kernels_project
    out = run(
        [str(built.venv_python), "benchmarks/kernels.py", "--quick", "--repeat", "1"],
        cwd=built.project,
    )
    print(out)  # the figures, for `pytest -s`
    assert re.findall(r"; (float\d\d), ", out) == ["float64", "float32"]  # both, by default
    assert out.count("copy floor (numpy.copyto)") == 2
    for row in ("axpy, out=", "axpy, new array", "sum_of_squares", "laplacian, out="):
        assert len(re.findall(rf"^{re.escape(row)} .*%$", out, flags=re.MULTILINE)) == 2, row
    assert out.count("GPU: not timed (no NVIDIA driver") == 2
    # The cost of a call, per kernel, at each size, as a ratio to NumPy's own call.
    assert re.findall(r"^Per call, (float\d\d) ", out, flags=re.MULTILINE) == ["float64", "float32"]
    assert len(re.findall(r"^axpy, out= .*x \(.*x \(.*x \(", out, flags=re.MULTILINE)) == 2
    assert len(re.findall(r"^axpy call, out= +bare prange loop .*%$", out, flags=re.MULTILINE)) == 2


def test_numba_kernels_compile_to_sound_ptx_with_numba_cuda_mlir(
    kernels_project: tuple[Built, str],
) -> None:
    # Last in this module: it adds the extra's target, which the kernels then compile with.
    built, _ = kernels_project
    numba = MATRIX["majors"][str(NEWEST)]["requirements"]["numba"]
    run(
        ["uv", "pip", "install", "--quiet", "--python", str(built.venv_python), *numba],
        cwd=built.project,
    )
    code = f"from {built.answer('package_name')}.kernels import numba_cuda as m; print(m.BACKEND)"
    assert run([str(built.venv_python), "-c", code], cwd=built.project).strip() == "numba-cuda-mlir"
    targets = ["tests/test_kernels_numba_target.py"]
    targets += [f"tests/test_kernels_numba_{example}_target.py" for example in ALL_EXAMPLES]
    out = run_pytest_of(built, "-q", *NUMBA_PTX_TESTS, *targets)
    assert passed(out) >= 60
    assert "skipped" not in out
