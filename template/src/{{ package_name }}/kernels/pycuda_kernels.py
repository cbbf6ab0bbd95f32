# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""PyCUDA: the legacy route, kept for projects that already use it.

PyCUDA compiles ``laplacian.cu`` with ``SourceModule``, which runs ``nvcc``: it needs a CUDA
toolkit on the machine, and PyCUDA itself has no binary wheels (pip builds it against that
toolkit). For new code prefer CuPy's ``RawModule`` (arrays and NVRTC, no toolkit) or ``cuda.core``
(explicit devices, streams and compilation).

Contexts: this module works in the caller's current context and, when there is none, makes the
device's *primary* context current with ``pycuda.autoprimaryctx``. That is the context the CUDA
runtime uses, so CuPy, Numba and PyTorch in the same process see the same memory. Never
``pycuda.autoinit``: it creates a second, private context, whose allocations and modules the
other libraries cannot use.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _checks
from ._cuda_c import kernel_name, laplacian_numpy, read_source
from ._launch import BLOCK_2D, grid_2d

if TYPE_CHECKING:
    from ._checks import Array

__all__ = ["is_pycuda_array", "laplacian_pycuda"]


def is_pycuda_array(a: object) -> bool:
    """True for a ``pycuda.gpuarray.GPUArray``; never imports PyCUDA."""
    gpuarray = sys.modules.get("pycuda.gpuarray")
    return gpuarray is not None and isinstance(a, gpuarray.GPUArray)


def _current_context() -> Any:
    """The current PyCUDA context; the primary context of the first device when there is none."""
    import pycuda.driver as cuda

    cuda.init()
    context = cuda.Context.get_current()
    if context is None:
        # Retains the primary context and pushes it for the rest of the process.
        import pycuda.autoprimaryctx  # noqa: F401

        context = cuda.Context.get_current()
    return context


@functools.cache
def _source_module(context_handle: int) -> Any:
    """``laplacian.cu`` compiled into the context of that handle, once (a module is per context)."""
    from pycuda.compiler import SourceModule

    # no_extern_c: the file declares its own extern "C" kernels around C++ templates.
    return SourceModule(read_source(), no_extern_c=True)


def laplacian_pycuda(u: Array, *, out: Array | None = None) -> Array:
    """The 5-point Laplacian (zero edges) of a ``GPUArray`` with PyCUDA; NumPy for host arrays.

    Parameters
    ----------
    u
        A 2-D float32 or float64 array: a C-contiguous ``GPUArray``, or a host array. Other
        device arrays (CuPy, Numba) are refused with a TypeError: use the CuPy or Numba routes.
    out
        An array of ``u``'s shape, dtype and kind, C-contiguous, sharing no memory with ``u``;
        new when omitted.

    Returns
    -------
    Array
        ``out``, or a new array of ``u``'s kind.
    """
    u, dtype = _checks.grid(
        "laplacian_pycuda", u, out, accept=is_pycuda_array, takes="NumPy arrays or PyCUDA GPUArrays"
    )
    if not is_pycuda_array(u):
        return laplacian_numpy(u, out)
    if not u.flags.c_contiguous:
        raise ValueError("laplacian_pycuda needs a C-contiguous GPUArray u; pass u.copy()")
    # A context first: allocations and modules belong to the context current when they are made.
    context = _current_context()
    from pycuda import gpuarray

    result = gpuarray.empty(u.shape, dtype) if out is None else out
    grid = grid_2d(u.shape, BLOCK_2D)  # y capped at MAX_GRID_Y: the kernel loops over rows
    if grid[0] and grid[1]:  # a grid of zero blocks is a CUDA launch error
        kernel = _source_module(context.handle).get_function(kernel_name(dtype))
        rows, cols = u.shape
        kernel(u, result, np.int32(rows), np.int32(cols), block=(*BLOCK_2D, 1), grid=grid)
    return result
