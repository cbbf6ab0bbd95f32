# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""CuPy's four routes to a custom GPU kernel, each next to its NumPy equivalent.

=====================  ==========================================================================
``ElementwiseKernel``  one output element per input element; the body is a line of CUDA C
``ReductionKernel``    map, reduce, post-map, in CUDA C; CuPy chooses the launch
``RawModule``          an existing CUDA C file (``laplacian.cu``); you choose the launch
``cupy.fuse``          a Python function of CuPy operations, fused into one kernel
=====================  ==========================================================================

Each public function checks its arguments once (:mod:`._checks`), then follows its arrays: CuPy
arrays run the GPU kernel, anything else runs the NumPy equivalent; neither checks again.
Kernels are built on first use and compiled by NVRTC on first call for each dtype; CuPy caches
the binaries on disk (``~/.cupy/kernel_cache``), so later processes start warm.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from ..gpu import gpu_dispatch
from . import _checks
from ._cuda_c import kernel_name, laplacian_numpy, read_source
from ._launch import BLOCK_2D, grid_2d

if TYPE_CHECKING:
    from ._checks import Array

__all__ = [
    "axpy_elementwise",
    "laplacian_raw",
    "squared_distance_fused",
    "sum_of_squares_reduction",
]


# --- ElementwiseKernel ---------------------------------------------------------------------------


@functools.cache
def _axpy_kernel() -> Any:
    import cupy

    # `T` is bound to the arrays' dtype at call time: one definition serves float32 and float64.
    return cupy.ElementwiseKernel("T a, T x, T y", "T out", "out = a * x + y", "axpy_elementwise")


def axpy_elementwise(a: float, x: Array, y: Array, *, out: Array | None = None) -> Array:
    """``a * x + y`` with a ``cupy.ElementwiseKernel``; NumPy ufuncs with ``out=`` on the CPU.

    ``out`` may be ``x`` or ``y`` itself; any other overlap with them is refused (ValueError).
    """
    x, y, dtype = _checks.elementwise("axpy_elementwise", x, y, out)
    return _axpy(_checks.scalar("axpy_elementwise", "a", a, dtype), x, y, out)


def _axpy_cpu(a: Any, x: Array, y: Array, out: Array | None) -> Array:
    result = np.empty(x.shape, dtype=x.dtype) if out is None else out
    # The checks let out overlap y only by being y: then a*x first would destroy y.
    if _checks.overlaps(result, y):
        np.add(y, a * x, out=result)
    else:  # two passes and no temporary, against three and one for `a * x + y`
        np.multiply(x, a, out=result)
        result += y
    return result


# No out-of-memory fallback: it would write into a host copy of `out`, never into `out` itself.
@gpu_dispatch(cpu=_axpy_cpu, oom_fallback=False)
def _axpy(a: Any, x: Array, y: Array, out: Array | None) -> Array:
    import cupy

    result = cupy.empty(x.shape, dtype=x.dtype) if out is None else out
    return _axpy_kernel()(a, x, y, result)


# --- ReductionKernel -----------------------------------------------------------------------------


@functools.cache
def _sum_of_squares_kernel() -> Any:
    import cupy

    return cupy.ReductionKernel(
        "T x",  # input
        "T total",  # output
        "x * x",  # map each element
        "a + b",  # reduce two mapped values
        "total = a",  # post-map the reduced value
        "0",  # identity of the reduction
        "sum_of_squares",
    )


def sum_of_squares_reduction(x: Array) -> Array:
    """The sum of ``x * x`` as a 0-d array, with a ``cupy.ReductionKernel``; BLAS dot on the CPU."""
    x, _ = _checks.reduction("sum_of_squares_reduction", x, None)
    return _sum_of_squares(x)


def _sum_of_squares_cpu(x: Array) -> Array:
    flat = x.ravel()
    return np.asarray(np.dot(flat, flat))  # BLAS: SIMD and threads, with NumPy alone


@gpu_dispatch(cpu=_sum_of_squares_cpu)
def _sum_of_squares(x: Array) -> Array:
    return _sum_of_squares_kernel()(x)


# --- RawModule -----------------------------------------------------------------------------------


@functools.cache
def _raw_module() -> Any:
    import cupy

    return cupy.RawModule(code=read_source(), options=("-std=c++17",))


def laplacian_raw(u: Array, *, out: Array | None = None) -> Array:
    """The 5-point Laplacian (zero edges) by ``laplacian.cu`` through a ``cupy.RawModule``.

    The CPU path is the same stencil in NumPy slices. ``out``, when given, must have ``u``'s shape
    and dtype, be of ``u``'s kind, be C-contiguous and share no memory with ``u``.
    """
    u, _ = _checks.grid("laplacian_raw", u, out)
    return _laplacian(u, out)


@gpu_dispatch(cpu=laplacian_numpy, oom_fallback=False)
def _laplacian(u: Array, out: Array | None) -> Array:
    import cupy

    u = cupy.ascontiguousarray(u)
    result = cupy.empty(u.shape, dtype=u.dtype) if out is None else out
    grid = grid_2d(u.shape, BLOCK_2D)  # y capped at MAX_GRID_Y: the kernel loops over rows
    if grid[0] and grid[1]:  # a grid of zero blocks is a CUDA launch error
        kernel = _raw_module().get_function(kernel_name(u.dtype))
        rows, cols = u.shape
        kernel(grid, BLOCK_2D, (u, result, np.int32(rows), np.int32(cols)))
    return result


# --- cupy.fuse -----------------------------------------------------------------------------------


@functools.cache
def _squared_distance_kernel() -> Any:
    import cupy

    def squared_distance(x: Any, y: Any) -> Any:
        difference = x - y
        return cupy.sum(difference * difference)

    # One kernel: the difference never exists as an array in device memory.
    return cupy.fuse(kernel_name="squared_distance")(squared_distance)


def squared_distance_fused(x: Array, y: Array) -> Array:
    """``sum((x - y) ** 2)`` as a 0-d array: ``cupy.fuse`` on the GPU, NumPy and BLAS on the CPU."""
    x, y, _ = _checks.elementwise("squared_distance_fused", x, y, None)
    return _squared_distance(x, y)


def _squared_distance_cpu(x: Array, y: Array) -> Array:
    difference = np.subtract(x, y).ravel()
    return np.asarray(np.dot(difference, difference))


@gpu_dispatch(cpu=_squared_distance_cpu)
def _squared_distance(x: Array, y: Array) -> Array:
    return _squared_distance_kernel()(x, y)
