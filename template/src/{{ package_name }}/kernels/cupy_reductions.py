# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Worked example: reductions with CuPy's ``ReductionKernel`` and ``cupy.fuse``, and NumPy twins.

=====================  ==========================================================================
``ReductionKernel``    map, reduce, post-map, in CUDA C; CuPy chooses the launch
``cupy.fuse``          a Python function of CuPy operations, fused into one kernel
=====================  ==========================================================================

Both follow :mod:`.cupy_kernels`'s pattern: arguments checked once, CuPy arrays to the kernel,
anything else to NumPy and BLAS.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from ..gpu import gpu_dispatch
from . import checks

if TYPE_CHECKING:
    from .checks import Array, ArrayT

__all__ = ["squared_distance_fused", "sum_of_squares_reduction"]


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


def sum_of_squares_reduction(x: Array[ArrayT]) -> ArrayT:
    """The sum of ``x * x`` as a 0-d array, with a ``cupy.ReductionKernel``; BLAS dot on the CPU."""
    checked = checks.arrays("sum_of_squares_reduction", {"x": x}, out_shape=())
    result: ArrayT = _sum_of_squares.on[checked.device](*checked.arrays)
    return result


def _sum_of_squares_cpu(x: Any) -> Any:
    flat = x.ravel()
    return np.asarray(np.dot(flat, flat))  # BLAS: SIMD and threads, with NumPy alone


@gpu_dispatch(cpu=_sum_of_squares_cpu)
def _sum_of_squares(x: Any) -> Any:
    return _sum_of_squares_kernel()(x)


# --- cupy.fuse -----------------------------------------------------------------------------------


@functools.cache
def _squared_distance_kernel() -> Any:
    import cupy

    def squared_distance(x: Any, y: Any) -> Any:
        difference = x - y
        return cupy.sum(difference * difference)

    # One kernel: the difference never exists as an array in device memory.
    return cupy.fuse(kernel_name="squared_distance")(squared_distance)


def squared_distance_fused(x: Array[ArrayT], y: Array[ArrayT]) -> ArrayT:
    """``sum((x - y) ** 2)`` as a 0-d array: ``cupy.fuse`` on the GPU, NumPy and BLAS on the CPU."""
    checked = checks.arrays("squared_distance_fused", {"x": x, "y": y}, out_shape=())
    result: ArrayT = _squared_distance.on[checked.device](*checked.arrays)
    return result


def _squared_distance_cpu(x: Any, y: Any) -> Any:
    difference = np.subtract(x, y).ravel()
    return np.asarray(np.dot(difference, difference))


@gpu_dispatch(cpu=_squared_distance_cpu)
def _squared_distance(x: Any, y: Any) -> Any:
    return _squared_distance_kernel()(x, y)
