"""The kernels' types check their callers: mypy --strict, run in a render as a user runs it,
refuses each wrong call with an error naming the argument, and passes the right ones with the
caller's own array type as the result.

Renders ``gpu_libraries = [cupy, numba, cuda-python]`` with ``examples = [reductions, stencil]``
(other answers default): every kind of public kernel function (elementwise with a scalar and
``out=``, a reduction, a stencil, a host-only route) and Numba's launch helper. Builds and
installs it, then runs the project's mypy, with its configuration, on one probe file of calls.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

import pytest
from conftest import Built, Render, build_and_install

pytestmark = pytest.mark.slow

ANSWERS = {"gpu_libraries": ["cupy", "numba", "cuda-python"], "examples": ["reductions", "stencil"]}

PROBE_HEADER = """\
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from typing_extensions import assert_type  # mypy's own stubs: any python_min, nothing installed

from {package}.kernels.cuda_core_kernels import laplacian_cuda_core
from {package}.kernels.cupy_kernels import axpy_elementwise
from {package}.kernels.numba_kernels import axpy
from {package}.kernels.numba_reductions import l2_norm
from {package}.kernels.numba_cuda import launch
from {package}.kernels.numba_stencil import laplacian

x: NDArray[np.float64] = np.ones(3)
u: NDArray[np.float32] = np.ones((3, 3), dtype=np.float32)
m = np.memmap("probe.bin", dtype=np.float64, mode="w+", shape=(3,))
"""

# Calls mypy must accept; each kernel function's result is the caller's array type.
RIGHT_CALLS = [
    "launch(None, (4, 2), (16, 16), 0, x)",
    "assert_type(axpy(2.0, x, x), NDArray[np.float64])",
    "assert_type(axpy(2, x, x, out=x), NDArray[np.float64])",
    "assert_type(axpy_elementwise(0.5, x, x), NDArray[np.float64])",
    "assert_type(l2_norm(x), NDArray[np.float64])",
    "assert_type(laplacian(u, out=np.empty_like(u)), NDArray[np.float32])",
    "assert_type(laplacian_cuda_core(u), NDArray[np.float32])",
    # A subclass comes back as the plain array the kernel computed into, and is typed so.
    "assert_type(axpy(2.0, m, m), NDArray[np.float64])",
]

# Each wrong call, and the start of the error mypy must report for it: the argument by position
# or name, and the type that was passed.
WRONG_CALLS = {
    "a string where an array goes": (
        'axpy(2.0, "x", x)',
        'Argument 2 to "axpy" has incompatible type "str"',
    ),
    "None where an array goes": (
        "axpy_elementwise(2.0, x, None)",
        'Argument 3 to "axpy_elementwise" has incompatible type "None"',
    ),
    "a number where an array goes": (
        "l2_norm(3.0)",
        'Argument 1 to "l2_norm" has incompatible type "float"',
    ),
    "an array where the scalar goes": (
        "axpy(x, x, x)",
        'Argument 1 to "axpy" has incompatible type "ndarray',
    ),
    "a string where the scalar goes": (
        'axpy("2", x, x)',
        'Argument 1 to "axpy" has incompatible type "str"',
    ),
    "a list as out": (
        "axpy(2.0, x, x, out=[0.0, 0.0, 0.0])",
        'Argument "out" to "axpy" has incompatible type "list[float]"',
    ),
    "a string as out": (
        'laplacian(u, out="out")',
        'Argument "out" to "laplacian" has incompatible type "str"',
    ),
    "a float as a launch's grid": (
        "launch(None, 2.5, 128, 0, x)",
        'Argument 2 to "launch" has incompatible type "float"',
    ),
    "a memmap's method on the plain array a kernel returns for one": (
        "axpy(2.0, m, m).flush()",
        '"ndarray[Any, dtype[float64]]" has no attribute "flush"',
    ),
    "a list to a host-only route": (
        "laplacian_cuda_core([[1.0, 2.0], [3.0, 4.0]])",
        'Argument 1 to "laplacian_cuda_core" has incompatible type "list[list[float]]"',
    ),
}

MYPY_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<message>.*)$", re.MULTILINE)


def test_mypy_errors_are_read_by_line() -> None:
    out = 'probe.py:7: error: Argument 2 to "f" has incompatible type "str"  [arg-type]\n'
    out += "probe.py:7: note: a note\nFound 1 error in 1 file (checked 1 source file)\n"
    assert errors_by_line(out) == {7: ['Argument 2 to "f" has incompatible type "str"  [arg-type]']}


def errors_by_line(out: str) -> dict[int, list[str]]:
    """mypy's errors (notes left out), by line of the file it checked."""
    found: dict[int, list[str]] = {}
    for match in MYPY_LINE.finditer(out):
        found.setdefault(int(match["line"]), []).append(match["message"])
    return found


@pytest.fixture(scope="module")
def typed_project(render: Render) -> Built:
    return build_and_install(render(ANSWERS, name="typed"), ANSWERS)


@dataclass(frozen=True)
class Probe:
    """mypy's errors on the probe file, by line, and the line of each call in it."""

    errors: dict[int, list[str]]
    line_of: dict[str, int]

    def errors_of(self, call: str) -> list[str]:
        # Older NumPy stubs spell an array of unknown shape ndarray[Any, ...], newer ones (NumPy
        # 2.5, which a 3.13 floor installs) ndarray[tuple[Any, ...], ...]: read both as the first.
        errors = self.errors.get(self.line_of[call], [])
        return [error.replace("[tuple[Any, ...], ", "[Any, ") for error in errors]


@pytest.fixture(scope="module")
def probe(typed_project: Built) -> Probe:
    """One mypy run over every call, each on a line of its own, so its errors are its own."""
    package = typed_project.answer("package_name")
    lines = PROBE_HEADER.format(package=package).splitlines()
    line_of = {}
    for call in [*RIGHT_CALLS, *(call for call, _ in WRONG_CALLS.values())]:
        lines.append(call)
        line_of[call] = len(lines)
    path = typed_project.project / "typing_probe.py"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    # The project's configuration (pyproject.toml: strict, mypy_path = src), on this file alone.
    mypy = [str(typed_project.venv_python), "-m", "mypy", "--no-incremental"]
    proc = subprocess.run(
        [*mypy, "--cache-dir=/dev/null", path.name],
        cwd=typed_project.project,
        capture_output=True,
        text=True,
        check=False,
    )
    elsewhere = [m[0] for m in MYPY_LINE.finditer(proc.stdout) if m["file"] != path.name]
    assert elsewhere == [], "mypy found errors outside the probe"
    return Probe(errors_by_line(proc.stdout), line_of)


@pytest.mark.parametrize("case", sorted(WRONG_CALLS))
def test_mypy_refuses_a_wrong_kernel_call_naming_the_argument(probe: Probe, case: str) -> None:
    call, expected = WRONG_CALLS[case]
    reported = probe.errors_of(call)
    assert [m for m in reported if m.startswith(expected)], f"{call}: mypy said {reported}"


def test_mypy_accepts_right_kernel_calls_and_returns_the_callers_array_type(probe: Probe) -> None:
    assert {call: probe.errors_of(call) for call in RIGHT_CALLS if probe.errors_of(call)} == {}
