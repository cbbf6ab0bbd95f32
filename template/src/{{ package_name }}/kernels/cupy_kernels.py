# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""A custom GPU kernel with CuPy's ``ElementwiseKernel``, next to its NumPy equivalent.

An ``ElementwiseKernel`` computes one output element per input element; its body is a line of
CUDA C, and CuPy chooses the launch. CuPy's other routes (``ReductionKernel``, ``cupy.fuse``,
``RawModule`` over a CUDA C file) are worked examples the project can add (its ``examples``
answer).

A public function checks its arguments once (:mod:`.checks`), then follows its arrays: CuPy
arrays run the GPU kernel, anything else runs the NumPy equivalent; neither checks again.
Kernels are built on first use and compiled by NVRTC on first call for each dtype; CuPy caches
the binaries on disk (``~/.cupy/kernel_cache``), so later processes start warm. CuPy writes their
index arithmetic: a 64-bit loop index (``CUPY_FOR``), 32-bit offsets only for arrays that fit.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from numpy import add, multiply  # np.add is a slow look-up: NumPy's module has __getattr__

from ..gpu import gpu_dispatch
from . import checks

if TYPE_CHECKING:
    from .checks import Array, ArrayT

__all__ = ["axpy_elementwise"]


@functools.cache
def _axpy_kernel() -> Any:
    import cupy

    # `T` is bound to the arrays' dtype at call time: one definition serves float32 and float64.
    return cupy.ElementwiseKernel("T a, T x, T y", "T out", "out = a * x + y", "axpy_elementwise")


def axpy_elementwise(
    a: float, x: Array[ArrayT], y: Array[ArrayT], *, out: Array[ArrayT] | None = None
) -> ArrayT:
    """``a * x + y`` with a ``cupy.ElementwiseKernel``; NumPy ufuncs with ``out=`` on the CPU.

    ``out`` may be ``x`` or ``y`` itself; any other overlap with them is refused (ValueError).
    """
    checked = checks.arrays("axpy_elementwise", {"x": x, "y": y}, out=out, out_may_be_input=True)
    scale = checks.scalar("axpy_elementwise", "a", a, checked.dtype)
    x_checked, y_checked = checked.arrays
    result: ArrayT = _axpy.on[checked.device](scale, x_checked, y_checked, out)
    return result


def _axpy_cpu(a: Any, x: Any, y: Any, out: Any) -> Any:
    # Two passes and no temporary, against three and one for `a * x + y`. `out` goes in as a
    # positional argument: the keyword costs a small call a tenth of NumPy's own time.
    if out is None:
        result = multiply(x, a, order="C")  # C order, as the GPU twin's cupy.empty
        try:
            return add(result, y, result)
        except TypeError:  # 0-d inputs: NumPy gave a scalar, which cannot be `out`
            return add(result, y, out=...)  # `...`: a 0-d array, as the GPU twin returns
    # out overlaps y only by being y (checks.Checked says so): then a*x first would destroy y.
    if out is y:
        return add(y, a * x, out)
    multiply(x, a, out)
    return add(out, y, out)


# No out-of-memory fallback: it would write into a host copy of `out`, never into `out` itself.
@gpu_dispatch(cpu=_axpy_cpu, oom_fallback=False)
def _axpy(a: Any, x: Any, y: Any, out: Any) -> Any:
    import cupy

    result = cupy.empty(x.shape, dtype=x.dtype) if out is None else out
    return _axpy_kernel()(a, x, y, result)
