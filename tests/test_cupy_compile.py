"""``kernels.cupy_compile`` compiles a user's CuPy kernels with NVRTC, against the real wheels.

This machine has no GPU and no driver, as a laptop or a CPU CI runner: CuPy installs and
imports, and NVRTC (a toolkit wheel of the cuda extra) compiles without a driver. A default
render gets the guide's files, then the cuda extra of its newest major.
"""

from __future__ import annotations

import ast
import subprocess
import textwrap

import pytest
from conftest import Built, Render, build_and_install, run, run_pytest_of
from test_guide import guide_files

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(render: Render) -> Built:
    """A default render with the guide's files and the newest major's cuda extra installed."""
    project = render({}, name="cupy-compile")
    for rel, body in guide_files((project / "docs" / "extending.md").read_text("utf-8")).items():
        (project / rel).write_text(body, "utf-8")
    built = build_and_install(project, {})
    extra = f"cuda{built.cuda_majors()[-1]}"
    install = ["uv", "pip", "install", "--quiet", "--python", str(built.venv_python)]
    name = built.answer("distribution_name")
    run([*install, f"{name}[{extra}] @ {built.wheel.as_uri()}"], cwd=project)
    return built


def compile_in(built: Built, kernel: str, args: str = "") -> str:
    """What ``nvrtc_errors`` says of ``kernel`` (a CuPy expression) called with ``args``."""
    script = textwrap.dedent(f"""
        import cupy, numpy as np
        from {built.answer("package_name")}.kernels.cupy_compile import nvrtc_errors
        print(repr(nvrtc_errors({kernel}{", " + args if args else ""})))
    """)
    proc = subprocess.run(
        [str(built.venv_python), "-c", script], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return str(ast.literal_eval(proc.stdout))  # the repr of one string


ELEMENTWISE = 'cupy.ElementwiseKernel("T x, T y, T a", "T out", "{body}", "scaled_diff")'
REDUCTION = "cupy.ReductionKernel('T x', 'T y', 'x * x', 'a + b', '{post}', '0', 'l2')"
RAW = "cupy.RawKernel('extern \"C\" __global__ void f(float* x) {{ {body} }}', 'f')"
MODULE = (
    "cupy.RawModule(code='template<typename T> __global__ void g(T* x) {{ x[0] = T(1); }}',"
    " name_expressions=['{name}'])"
)


def test_the_guides_nvrtc_test_runs_and_passes(project: Built) -> None:
    out = run_pytest_of(project, "-v", "tests/test_my_cupy_kernels_nvrtc.py")
    assert out.count("PASSED") == 2, out


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


def test_a_reduction_kernel_compiles_and_its_typo_is_reported(project: Built) -> None:
    assert compile_in(project, REDUCTION.format(post="y = sqrt(a)"), "np.zeros(3, 'f4')") == ""
    message = compile_in(project, REDUCTION.format(post="y = sqrtt(a)"), "np.zeros(3)")
    assert 'error: identifier "sqrtt" is undefined' in message


def test_a_raw_kernel_compiles_as_written_and_its_typo_is_reported(project: Built) -> None:
    assert compile_in(project, RAW.format(body="x[threadIdx.x] = 1.0f;")) == ""
    assert 'expected a ";"' in compile_in(project, RAW.format(body="x[threadIdx.x] = 1.0f"))


def test_a_raw_modules_name_expressions_are_instantiated(project: Built) -> None:
    assert compile_in(project, MODULE.format(name="g<double>")) == ""
    assert 'identifier "flot" is undefined' in compile_in(project, MODULE.format(name="g<flot>"))


def test_something_else_is_refused_naming_the_kernels_it_takes(project: Built) -> None:
    script = textwrap.dedent(f"""
        from {project.answer("package_name")}.kernels.cupy_compile import nvrtc_errors
        nvrtc_errors(len)
    """)
    proc = subprocess.run(
        [str(project.venv_python), "-c", script], capture_output=True, text=True, check=False
    )
    assert "TypeError: nvrtc_errors takes a cupy.ElementwiseKernel, ReductionKernel," in (
        proc.stderr
    )
