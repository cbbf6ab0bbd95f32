# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Worked example: an existing CUDA C file (``laplacian.cu``) through CuPy's ``RawModule``.

``RawModule`` compiles a CUDA C source with NVRTC; you choose the launch. The CPU twin is the same
stencil in NumPy slices (:mod:`._cuda_c`). The pattern is :mod:`.cupy_kernels`'s: arguments
checked once, CuPy arrays to the kernel, anything else to NumPy.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from ..gpu import gpu_dispatch
from ._cuda_c import kernel_name, laplacian_numpy, read_source
from ._grids import BLOCK_2D, checked_grid, grid_2d

if TYPE_CHECKING:
    from .checks import Array, ArrayT

__all__ = ["laplacian_raw"]


# --- RawModule -----------------------------------------------------------------------------------


@functools.cache
def _raw_module() -> Any:
    import cupy

    return cupy.RawModule(code=read_source(), options=("-std=c++17",))


def laplacian_raw(u: Array[ArrayT], *, out: Array[ArrayT] | None = None) -> ArrayT:
    """The 5-point Laplacian (zero edges) by ``laplacian.cu`` through a ``cupy.RawModule``.

    The CPU path is the same stencil in NumPy slices. ``out``, when given, must have ``u``'s shape
    and dtype, be of ``u``'s kind, be C-contiguous and share no memory with ``u``.
    """
    checked = checked_grid("laplacian_raw", u, out)
    (u_checked,) = checked.arrays
    result: ArrayT = _laplacian.on[checked.device](u_checked, out)
    return result


@gpu_dispatch(cpu=laplacian_numpy, oom_fallback=False)
def _laplacian(u: Any, out: Any) -> Any:
    import cupy

    u = cupy.ascontiguousarray(u)
    result = cupy.empty(u.shape, dtype=u.dtype) if out is None else out
    grid = grid_2d(u.shape, BLOCK_2D)  # y capped at MAX_GRID_Y: the kernel loops over rows
    if grid[0] and grid[1]:  # a grid of zero blocks is a CUDA launch error
        kernel = _raw_module().get_function(kernel_name(u.dtype))
        rows, cols = u.shape
        kernel(grid, BLOCK_2D, (u, result, np.int64(rows), np.int64(cols)))
    return result
