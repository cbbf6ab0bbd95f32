# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""CUDA kernels in Python syntax (Numba), and the helpers that size their launches.

The kernels are written once, in what both of Numba's CUDA targets compile. This module compiles
them with numba-cuda-mlir (``numba_cuda_mlir.cuda``, NVIDIA's maintained target) where it is
installed, and with numba-cuda (``numba.cuda``) otherwise and always under the CUDA simulator,
which only numba-cuda has. It imports that target when it is imported, so only GPU paths and
simulator tests import it. Launchers take device arrays: Numba device arrays, CuPy arrays
(anything with ``__cuda_array_interface__``), or NumPy arrays under the CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``), where every CUDA thread is a Python thread: slow, but exact enough
to test indexing, shared memory, barriers and atomics without a GPU.

No kernel here uses warp shuffles: the simulator does not implement them, and a shared-memory tree
is as fast for a reduction that is bound by memory bandwidth.

The Laplacian kernel calls :func:`._numba_shared.stencil_point_source` compiled as an inlined
device function: the same Python function the CPU loop compiles with ``numba.njit``.
"""

from __future__ import annotations

import functools
import importlib
import os
import warnings
from typing import Any

import numpy as np

from ._launch import (
    BLOCK_2D,
    THREADS_PER_BLOCK,
    blocks_for,
    check_threads_per_block,
    grid_2d,
    reduction_blocks,
)
from ._numba_shared import stencil_point_source

__all__ = [
    "BACKEND",
    "cupy_stream",
    "launch",
    "launch_axpy",
    "launch_laplacian",
    "launch_sum_of_squares",
    "sm_count",
]


def _simulator_enabled() -> bool:
    """Whether Numba will run kernels in its CUDA simulator, read as Numba reads it.

    Numba takes ``int(NUMBA_ENABLE_CUDASIM)`` and treats a value that is not an integer as off
    (with a warning), so ``00`` is off and ``2`` is on; any other reading would name a target
    Numba is not using.
    """
    try:
        return int(os.environ.get("NUMBA_ENABLE_CUDASIM", 0)) != 0
    except ValueError:
        return False


def _cuda_target() -> tuple[Any, str]:
    """The CUDA module kernels compile with, and its name (which the doctor and tests report)."""
    # Numba reads the simulator switch from the environment when it is first imported.
    if _simulator_enabled():
        return importlib.import_module("numba.cuda"), "numba-cuda simulator"
    try:
        return importlib.import_module("numba_cuda_mlir.cuda"), "numba-cuda-mlir"
    except ImportError:  # not installed (Python 3.10, or numba-cuda chosen by hand)
        return importlib.import_module("numba.cuda"), "numba-cuda"


# The CUDA intrinsics (cuda.grid, cuda.shared, ...) exist for the kernel compiler, not as typed
# Python, so mypy is told the module is untyped.
cuda: Any
BACKEND: str
cuda, BACKEND = _cuda_target()

_DEFAULT_STREAM = 0  # the legacy default stream, the one CuPy also uses by default

# Both targets warn (NumbaPerformanceWarning, each its own class) whenever a grid has fewer than
# 128 blocks. Here the grid follows the data, so a small array is a small grid by design, and
# under `filterwarnings = error` the advice would fail every small call: exactly that message is
# silenced at the launch, nothing else.
_LOW_OCCUPANCY = r"Grid size \d+ will likely result in GPU under-utilization"


def _performance_warning() -> type[Warning]:
    """The target's NumbaPerformanceWarning class (each target defines its own)."""
    for module in (
        "numba_cuda_mlir.numba_cuda.core.errors" if BACKEND == "numba-cuda-mlir" else "",
        "numba.cuda.core.errors",  # numba-cuda
        "numba.core.errors",  # the CUDA target built into older numba releases
    ):
        try:
            found: type[Warning] = importlib.import_module(module).NumbaPerformanceWarning
        except (ImportError, ValueError, AttributeError):  # ValueError: the empty name
            continue
        return found
    return Warning


_PERFORMANCE_WARNING = _performance_warning()

# Inlined: numba-cuda compiles a device function that is not inlined for the current device, which
# needs a driver even to emit PTX.
_stencil_point: Any = cuda.jit(device=True, inline="always")(stencil_point_source)


def sm_count() -> int:
    """Multiprocessors on the current device (the simulator reports its own small number)."""
    return int(getattr(cuda.get_current_device(), "MULTIPROCESSOR_COUNT", 1))


def cupy_stream() -> Any:
    """CuPy's current stream as a Numba stream, so kernels queue in order with CuPy's work."""
    import cupy

    pointer = cupy.cuda.get_current_stream().ptr
    return cuda.external_stream(pointer) if pointer else cuda.default_stream()


# --- kernels -------------------------------------------------------------------------------------
# Kernels that need a compile-time constant (a shared-array size, a typed literal) are built by a
# cached factory: closure variables are constants to Numba, so each (size, dtype) compiles once.


def _axpy(a: Any, x: Any, y: Any, out: Any) -> None:
    i = cuda.grid(1)
    if i < out.size:  # the last block overhangs the array
        out[i] = a * x[i] + y[i]


_axpy_kernel: Any = cuda.jit(_axpy)


@functools.cache
def _sum_of_squares_kernel(threads: int, dtype: np.dtype[Any]) -> Any:
    element = dtype.type  # a NumPy scalar type: both targets take it (numba's types: only one)
    zero = dtype.type(0)

    def kernel(x: Any, out: Any) -> None:
        partial = cuda.shared.array(threads, element)
        tid = cuda.threadIdx.x
        total = zero
        for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):  # grid-stride loop
            total += x[i] * x[i]
        partial[tid] = total
        cuda.syncthreads()
        step = threads // 2
        while step > 0:  # tree in shared memory; every thread reaches every barrier
            if tid < step:
                partial[tid] += partial[tid + step]
            cuda.syncthreads()
            step //= 2
        if tid == 0:
            cuda.atomic.add(out, 0, partial[0])

    return cuda.jit(kernel)


def _laplacian(u: Any, out: Any) -> None:
    col, first_row = cuda.grid(2)  # x runs along columns: a warp reads contiguous memory
    rows, cols = u.shape
    if col >= cols:  # the last blocks overhang the grid
        return
    # A grid-stride loop over rows: the launch caps the grid's y at MAX_GRID_Y blocks.
    for row in range(first_row, rows, cuda.gridsize(2)[1]):
        if 0 < row < rows - 1 and 0 < col < cols - 1:
            out[row, col] = _stencil_point(u, row, col)
        else:
            out[row, col] = 0


_laplacian_kernel: Any = cuda.jit(_laplacian)


# --- launchers -----------------------------------------------------------------------------------


def launch(kernel: Any, grid: Any, block: Any, stream: Any, *args: Any) -> None:
    """``kernel[grid, block, stream](*args)``, without Numba's low-occupancy warning."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_LOW_OCCUPANCY, category=_PERFORMANCE_WARNING)
        kernel[grid, block, stream](*args)


def launch_axpy(
    a: Any,
    x: Any,
    y: Any,
    out: Any,
    *,
    threads: int = THREADS_PER_BLOCK,
    stream: Any = _DEFAULT_STREAM,
) -> None:
    """``out = a * x + y`` on 1-D device arrays, one thread per element."""
    blocks = blocks_for(out.size, threads)
    if blocks:  # a grid of zero blocks is a CUDA launch error
        launch(_axpy_kernel, blocks, threads, stream, a, x, y, out)


def launch_sum_of_squares(
    x: Any,
    out: Any,
    *,
    threads: int = THREADS_PER_BLOCK,
    sms: int | None = None,
    stream: Any = _DEFAULT_STREAM,
) -> None:
    """Add the sum of ``x * x`` to ``out[0]`` (zero it first); ``x`` 1-D, ``out`` of x's dtype."""
    check_threads_per_block(threads)
    blocks = reduction_blocks(x.size, sm_count() if sms is None else sms, threads)
    if blocks:
        kernel = _sum_of_squares_kernel(threads, np.dtype(x.dtype))
        launch(kernel, blocks, threads, stream, x, out)


def launch_laplacian(
    u: Any,
    out: Any,
    *,
    block: tuple[int, int] = BLOCK_2D,
    stream: Any = _DEFAULT_STREAM,
) -> None:
    """``out`` = the 5-point Laplacian of the 2-D C-contiguous ``u``, with zero edges."""
    grid = grid_2d(u.shape, block)
    if grid[0] and grid[1]:
        launch(_laplacian_kernel, grid, block, stream, u, out)
