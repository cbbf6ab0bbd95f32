# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""PyCUDA: the legacy route, kept for projects that already use it.

PyCUDA compiles ``laplacian.cu`` with ``SourceModule``, which runs ``nvcc``: it needs a CUDA
toolkit on the machine, and PyCUDA itself has no binary wheels (pip builds it against that
toolkit). For new code prefer CuPy's ``RawModule`` (arrays and NVRTC, no toolkit) or ``cuda.core``
(explicit devices, streams and compilation).

Contexts: ``Context.get_current()`` reads PyCUDA's own context stack, one per thread, not the
driver's (``context::current_context`` in PyCUDA's ``src/cpp/cuda.hpp``). The caller's PyCUDA
context is used when this thread has one; otherwise, for the call only, the *primary* context of
the device the driver has current (CuPy's or PyTorch's; device 0 if none), the runtime's context
whose memory CuPy, Numba and PyTorch share. Never ``pycuda.autoinit`` (a private context) nor
``pycuda.autoprimaryctx`` (device 0's, pushed once, in the importing thread only).
"""

from __future__ import annotations

import contextlib
import sys
import threading
from typing import TYPE_CHECKING, Any

import numpy as np

from ._cuda_c import compile_once, kernel_name, laplacian_numpy, read_source
from ._grids import BLOCK_2D, checked_grid, grid_2d

if TYPE_CHECKING:
    from collections.abc import Iterator

    from .checks import Array, ArrayT

__all__ = ["is_pycuda_array", "laplacian_pycuda"]


def is_pycuda_array(a: object) -> bool:
    """True for a ``pycuda.gpuarray.GPUArray``; never imports PyCUDA."""
    gpuarray = sys.modules.get("pycuda.gpuarray")
    return gpuarray is not None and isinstance(a, gpuarray.GPUArray)


# Each device's primary context, retained once for the process: PyCUDA's primary_context, when
# collected, pushes itself and releases without popping, a driver stack level lost per object.
_PRIMARY: dict[Any, Any] = {}
_PRIMARY_LOCK = threading.Lock()


@contextlib.contextmanager
def _context() -> Iterator[Any]:
    """A PyCUDA context current in this thread for the block: the caller's, or one pushed for it."""
    import pycuda.driver as cuda

    cuda.init()
    context = cuda.Context.get_current()
    if context is not None:
        yield context
        return
    try:
        device = cuda.Context.get_device()  # cuCtxGetDevice: the driver's current context
    except cuda.LogicError:  # CUDA_ERROR_INVALID_CONTEXT, none current: the runtime's default
        device = cuda.Device(0)
    with _PRIMARY_LOCK:
        _PRIMARY[device] = context = _PRIMARY.get(device) or device.retain_primary_context()
    context.push()
    try:
        yield context
    finally:
        cuda.Context.pop()


@compile_once
def _source_module(context_handle: int) -> Any:
    """``laplacian.cu`` compiled into the context of that handle, once (a module is per context)."""
    from pycuda.compiler import SourceModule

    # no_extern_c: the file declares its own extern "C" kernels around C++ templates.
    return SourceModule(read_source(), no_extern_c=True)


def laplacian_pycuda(u: Array[ArrayT], *, out: Array[ArrayT] | None = None) -> ArrayT:
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
    ArrayT
        ``out``, or a new array of ``u``'s kind.
    """
    checked = checked_grid(
        "laplacian_pycuda",
        u,
        out,
        accept=is_pycuda_array,
        takes="NumPy arrays or PyCUDA GPUArrays",
    )
    (grid,) = checked.arrays
    result: ArrayT = (
        _laplacian_gpuarray(grid, out, checked.dtype)
        if checked.on_device
        else laplacian_numpy(grid, out)
    )
    return result


def _laplacian_gpuarray(u: Any, out: Any, dtype: np.dtype[Any]) -> Any:
    """``laplacian.cu`` launched by PyCUDA on a checked ``GPUArray`` and its ``out``."""
    if not u.flags.c_contiguous:
        raise ValueError("laplacian_pycuda needs a C-contiguous GPUArray u; pass u.copy()")
    from pycuda import gpuarray

    grid = grid_2d(u.shape, BLOCK_2D)  # y capped at MAX_GRID_Y: the kernel loops over rows
    # A context first: allocations and modules belong to the context current when they are made.
    with _context() as context:
        result = gpuarray.empty(u.shape, dtype) if out is None else out
        if grid[0] and grid[1]:  # a grid of zero blocks is a CUDA launch error
            kernel = _source_module(context.handle).get_function(kernel_name(dtype))
            rows, cols = u.shape
            kernel(u, result, np.int64(rows), np.int64(cols), block=(*BLOCK_2D, 1), grid=grid)
    return result
