"""``tests/cupy_compile.py`` compiles a user's CuPy kernels as CuPy does, with the real wheels.

This machine has no GPU and no driver, as a laptop or a CPU CI runner: CuPy installs and
imports, and NVRTC (a toolkit wheel of the cuda extra) compiles without a driver. A default
render gets the files of both guides, then the cuda extra of each major in a venv of its own: every
case holds against NVRTC of every major.
"""

from __future__ import annotations

import ast
import subprocess
import textwrap

import pytest
from conftest import (
    MAJORS,
    Built,
    Render,
    build_and_install,
    run,
    run_pytest_of,
)
from template_data import load_computed
from test_guide import guide_files_of

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=MAJORS, ids=lambda major: f"cuda{major}")
def project(request: pytest.FixtureRequest, render: Render) -> Built:
    """A default render with the guides' files and one major's cuda extra installed."""
    project = render({"deep_checks": True}, name=f"cupy-compile-cuda{request.param}")
    for rel, body in guide_files_of(project).items():
        (project / rel).write_text(body, "utf-8")
    built = build_and_install(project, {})
    install = ["uv", "pip", "install", "--quiet", "--python", str(built.venv_python)]
    name = built.answer("distribution_name")
    run([*install, f"{name}[cuda{request.param}] @ {built.wheel.as_uri()}"], cwd=project)
    return built


def compile_in(built: Built, kernel: str, args: str = "") -> str:
    """What ``nvrtc_errors`` says of ``kernel`` (a CuPy expression) called with ``args``."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(built.project / "tests")!r})
        import cupy, numpy as np
        from cupy_compile import nvrtc_errors
        print(repr(nvrtc_errors({kernel}{", " + args if args else ""})))
    """)
    proc = subprocess.run(
        [str(built.venv_python), "-c", script], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return str(ast.literal_eval(proc.stdout.splitlines()[-1]))  # the repr of one string


def nvrtc_major(built: Built) -> int:
    """The major of the NVRTC the extra installed."""
    script = "from cupy.cuda import nvrtc; print(nvrtc.getVersion()[0])"
    return int(run([str(built.venv_python), "-c", script], cwd=built.project).strip())


ELEMENTWISE = 'cupy.ElementwiseKernel("T x, T y, T a", "T out", "{body}", "scaled_diff")'
UNARY = 'cupy.ElementwiseKernel("T x", "{out}", "{body}", "unary")'
REDUCTION = "cupy.ReductionKernel('T x', 'T y', 'x * x', 'a + b', '{post}', '0', 'l2')"
NAMED_REDUCTION = "cupy.ReductionKernel('T {x}', 'T {y}', '{map}', 'a + b', '{post}', '0', 'r')"
RAW = "cupy.RawKernel('extern \"C\" __global__ void f(float* x) {{ {body} }}', 'f')"
MODULE = (
    "cupy.RawModule(code='template<typename T> __global__ void g(T* x) {{ x[0] = T(1); }}',"
    " name_expressions=['{name}'])"
)
SHARED = "__shared__ float s[{n}]; s[threadIdx.x] = 1.0f; __syncthreads(); x[0] = s[{n} - 1];"


def test_the_guides_nvrtc_test_runs_and_passes(project: Built) -> None:
    out = run_pytest_of(project, "-v", "tests/test_my_cupy_kernels_nvrtc.py")
    assert out.count("PASSED") == 2, out


def test_the_extra_brings_nvrtc_of_its_own_major(project: Built) -> None:
    # Each parameter of `project` is a major: without this, every case could run on one NVRTC.
    assert nvrtc_major(project) in MAJORS


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_an_elementwise_kernel_with_a_scalar_compiles_for_each_dtype(
    project: Built, dtype: str
) -> None:
    kernel = ELEMENTWISE.format(body="out = (x - y) * a")
    assert compile_in(project, kernel, f"np.zeros(3, '{dtype}'), np.zeros(3, '{dtype}'), 2.0") == ""


def test_a_typo_in_an_elementwise_body_is_reported_with_nvrtcs_message(project: Built) -> None:
    kernel = ELEMENTWISE.format(body="out = (x - yy) * a")
    message = compile_in(project, kernel, "np.zeros(3), np.zeros(3), np.float64(2)")
    assert 'error: identifier "yy" is undefined' in message
    assert "out = (x - yy) * a" in message  # the line, as NVRTC quotes it


def test_a_numpy_scalar_takes_its_parameters_type_as_in_cupy(project: Built) -> None:
    # CuPy types only its arrays: a float64 scalar is cast to the float32 that `T` binds to.
    kernel = ELEMENTWISE.format(body="out = (x - y) * a")
    assert compile_in(project, kernel, "np.zeros(3, 'f4'), np.zeros(3, 'f4'), np.float64(2)") == ""


def test_an_elementwise_kernels_options_and_loop_code_are_compiled(project: Built) -> None:
    kernel = (
        "cupy.ElementwiseKernel('T x', 'T y', 'y = x + FOO + z', 'k', options=('-DFOO=1',),"
        " loop_prep='T z = 1;', after_loop='{after}')"
    )
    assert compile_in(project, kernel.format(after="/* done */"), "np.zeros(3)") == ""
    message = compile_in(project, kernel.format(after="z = zz;"), "np.zeros(3)")
    assert 'error: identifier "zz" is undefined' in message  # after_loop is compiled too


def test_a_raw_array_keeps_its_dimensions(project: Built) -> None:
    two_d = "ptrdiff_t idx[] = {i / 4, i % 4};"
    read = f"cupy.ElementwiseKernel('raw T u, T y0', 'T y', '{two_d} y = u[idx] + y0;', 'r')"
    assert compile_in(project, read, "np.zeros((4, 4)), np.zeros((4, 4))") == ""
    write = f"cupy.ElementwiseKernel('T x', 'raw T y', '{two_d} y[idx] = x;', 'w')"
    assert compile_in(project, write, "np.zeros((4, 4))") == ""


# --- CuPy's headers: complex.cuh, carray.cuh, atomics.cuh and math_constants.h, as core.pyx has


def test_a_complex_kernel_compiles_with_cupys_complex_header(project: Built) -> None:
    kernel = UNARY.format(out="T y", body="y = x * conj(x) + exp(x)")
    assert compile_in(project, kernel, "np.zeros(3, 'complex128')") == ""


def test_cupys_math_constants_are_defined(project: Built) -> None:
    kernel = UNARY.format(out="T y", body="y = x > 0 ? CUDART_INF : CUDART_NAN")
    assert compile_in(project, kernel, "np.zeros(3)") == ""


def test_a_float16_atomic_add_compiles_with_cupys_atomics(project: Built) -> None:
    kernel = UNARY.format(out="raw T total", body="atomicAdd(&total[0], x)")
    assert compile_in(project, kernel, "np.zeros(3, 'float16')") == ""


# --- a cubin for -arch=sm_XX, through ptxas, as cupy/cuda/compiler.py compiles on a GPU


def test_too_much_static_shared_memory_fails_in_ptxas_as_on_a_gpu(project: Built) -> None:
    assert compile_in(project, RAW.format(body=SHARED.format(n=12 * 1024))) == ""  # 48 KiB
    message = compile_in(project, RAW.format(body=SHARED.format(n=16 * 1024)))  # 64 KiB
    assert "ptxas error" in message
    assert "uses too much shared data" in message


def test_the_architecture_is_the_oldest_gpu_of_the_installed_major(project: Built) -> None:
    floor = load_computed("cuda_matrix")["majors"][str(nvrtc_major(project))]
    expected = floor["min_compute_capability"].replace(".", "") + "0"  # 7.5 is __CUDA_ARCH__ 750
    body = f"\\n#if __CUDA_ARCH__ != {expected}\\n#error wrong architecture\\n#endif\\n"
    assert compile_in(project, RAW.format(body=body)) == ""


# --- ReductionKernel: CuPy's own kernel, and its CUB block reduction (_cub_reduction.pyx)


def test_a_reduction_kernel_compiles_and_its_typo_is_reported(project: Built) -> None:
    assert compile_in(project, REDUCTION.format(post="y = sqrt(a)"), "np.zeros(3, 'f4')") == ""
    message = compile_in(project, REDUCTION.format(post="y = sqrtt(a)"), "np.zeros(3)")
    assert 'error: identifier "sqrtt" is undefined' in message


def test_cupys_cub_rename_of_a_one_letter_parameter_is_reported(project: Built) -> None:
    # CuPy's CUB path replaces `x` by `in0` in the text: max(x, ...) becomes main0(in0, ...).
    kernel = NAMED_REDUCTION.format(x="x", y="y", map="max(x, T(0))", post="y = a")
    message = compile_in(project, kernel, "np.zeros(3, 'f4')")
    assert "CuPy's CUB block reduction over an axis:" in message
    assert 'identifier "main0" is undefined' in message
    assert "ReductionKernel's own kernel" not in message  # CuPy's own path compiles it


def test_the_guides_reduction_names_pass_cupys_cub_rename(project: Built) -> None:
    kernel = NAMED_REDUCTION.format(
        x="value", y="total", map="max(value, T(0))", post="total = sqrt(a)"
    )
    assert compile_in(project, kernel, "np.zeros(3, 'f4')") == ""


def test_parameters_named_in0_and_out0_fail_on_cupys_cub_path(project: Built) -> None:
    kernel = NAMED_REDUCTION.format(x="in0", y="out0", map="in0", post="out0 = a")
    assert 'identifier "type_in0_raw" is undefined' in compile_in(project, kernel, "np.zeros(3)")


def test_the_input_indexer_is_missing_on_cupys_cub_path(project: Built) -> None:
    kernel = NAMED_REDUCTION.format(
        x="value", y="total", map="value", post="total = a / _in_ind.size()"
    )
    message = compile_in(project, kernel, "np.zeros(3)")
    assert "CuPy's CUB block reduction over the whole array, pass 2:" in message
    assert 'identifier "_in_ind" is undefined' in message


def test_a_reduction_of_two_inputs_has_no_cub_path(project: Built) -> None:
    kernel = "cupy.ReductionKernel('T x, T w', 'T y', 'max(x, w)', 'a + b', 'y = a', '0', 'r')"
    assert compile_in(project, kernel, "np.zeros(3), np.zeros(3)") == ""


# --- raw kernels: compiled as written, with CuPy's options and no headers (raw.pyx)


def test_a_raw_kernel_compiles_as_written_and_its_typo_is_reported(project: Built) -> None:
    assert compile_in(project, RAW.format(body="x[threadIdx.x] = 1.0f;")) == ""
    assert 'expected a ";"' in compile_in(project, RAW.format(body="x[threadIdx.x] = 1.0f"))


def test_a_raw_modules_name_expressions_are_instantiated(project: Built) -> None:
    assert compile_in(project, MODULE.format(name="g<double>")) == ""
    assert 'identifier "flot" is undefined' in compile_in(project, MODULE.format(name="g<flot>"))


def test_something_else_is_refused_naming_the_kernels_it_takes(project: Built) -> None:
    with pytest.raises(AssertionError, match=r"TypeError: nvrtc_errors takes a cupy\.Elementwise"):
        compile_in(project, "len")


def test_the_module_is_a_test_helper_not_part_of_the_package(project: Built) -> None:
    assert (project.project / "tests" / "cupy_compile.py").is_file()
    package = project.project / "src" / project.answer("package_name")
    assert not list(package.rglob("cupy_compile.py"))
