"""PyCUDA: the legacy route, kept for projects that already use it.

PyCUDA compiles ``laplacian.cu`` with ``SourceModule``, which runs ``nvcc``: it needs a CUDA
toolkit on the machine, and PyCUDA itself has no binary wheels (pip builds it against that
toolkit). Its ``pycuda.autoinit`` creates a context on device 0 and owns it for the process. For
new code prefer CuPy's ``RawModule`` (arrays and NVRTC, no toolkit) or ``cuda.core`` (explicit
devices, streams and compilation).
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import numpy as np

from ._checks import Array, check_grid, float_dtype
from ._cuda_c import kernel_name, laplacian_cpu, read_source
from ._launch import BLOCK_2D, grid_2d

__all__ = ["is_pycuda_array", "laplacian_pycuda"]


def is_pycuda_array(a: object) -> bool:
    """True for a ``pycuda.gpuarray.GPUArray``; never imports PyCUDA."""
    gpuarray = sys.modules.get("pycuda.gpuarray")
    return gpuarray is not None and isinstance(a, gpuarray.GPUArray)


@functools.cache
def _source_module() -> Any:
    import pycuda.autoinit  # noqa: F401  (creates the context SourceModule compiles for)
    from pycuda.compiler import SourceModule

    # no_extern_c: the file declares its own extern "C" kernels around C++ templates.
    return SourceModule(read_source(), no_extern_c=True)


def laplacian_pycuda(u: Array, *, out: Array | None = None) -> Array:
    """The 5-point Laplacian (zero edges) of a ``GPUArray`` with PyCUDA; NumPy for host arrays."""
    if not is_pycuda_array(u):
        return laplacian_cpu(u, out=out)
    from pycuda import gpuarray

    float_dtype("laplacian_pycuda", u)
    dtype, result = check_grid("laplacian_pycuda", u, out, gpuarray.empty)
    if not (u.flags.c_contiguous and is_pycuda_array(result)):
        raise ValueError("laplacian_pycuda needs C-contiguous GPUArrays for u and out")
    grid = grid_2d(u.shape, BLOCK_2D)
    if grid[0] and grid[1]:
        kernel = _source_module().get_function(kernel_name(dtype))
        rows, cols = u.shape
        kernel(u, result, np.int32(rows), np.int32(cols), block=(*BLOCK_2D, 1), grid=grid)
    return result
