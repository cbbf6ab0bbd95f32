# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The reduction example's CUDA kernel (Numba): a grid-stride loop, a shared-memory tree, atomics.

It compiles with :mod:`.numba_cuda`'s target when it is imported, so only GPU paths and
simulator tests import it. No warp shuffles: the simulator does not implement them, and a
shared-memory tree is as fast for a reduction bound by memory bandwidth.

The launch is a *grid-stride loop* over a capped grid (a few blocks per multiprocessor): each
thread sums many elements in a register, so there is one shared-memory tree and one atomic per
block instead of one per element.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import THREADS_PER_BLOCK, blocks_for, check_threads_per_block, disk_cache
from .numba_cuda import _DEFAULT_STREAM, cuda, cupy_stream, launch

# cupy_stream too: the dispatcher takes the launcher and its stream from one module.
__all__ = ["cupy_stream", "launch_sum_of_squares", "reduction_blocks", "sm_count"]

# Enough resident blocks to keep every multiprocessor busy while others wait on memory; more only
# adds atomics.
REDUCTION_BLOCKS_PER_SM = 4


def sm_count() -> int:
    """Multiprocessors on the current device (the simulator reports its own small number)."""
    return int(getattr(cuda.get_current_device(), "MULTIPROCESSOR_COUNT", 1))


def reduction_blocks(n: int, sms: int, threads: int = THREADS_PER_BLOCK) -> int:
    """Blocks for a grid-stride reduction: one per ``threads`` elements, capped at a few per SM."""
    return min(blocks_for(n, threads), REDUCTION_BLOCKS_PER_SM * max(sms, 1))


# Kernels that need a compile-time constant (a shared-array size, a typed literal) are built by a
# cached factory: closure variables are constants to Numba, so each (size, dtype) compiles once.
# Not functools.cache: threads that miss together would each get a dispatcher of their own, and
# each compiles at its first launch. Building one is cheap: all of them get the first one kept.
_SUM_OF_SQUARES: dict[tuple[int, np.dtype[Any]], Any] = {}


def _sum_of_squares_kernel(threads: int, dtype: np.dtype[Any]) -> Any:
    key = (threads, dtype)
    kernel = _SUM_OF_SQUARES.get(key)
    return _SUM_OF_SQUARES.setdefault(key, _new_sum_of_squares(*key)) if kernel is None else kernel


def _new_sum_of_squares(threads: int, dtype: np.dtype[Any]) -> Any:
    element = dtype.type  # a NumPy scalar type: both targets take it (numba's types: only one)
    zero = dtype.type(0)

    def kernel(x: Any, out: Any) -> None:
        partial = cuda.shared.array(threads, element)
        tid = cuda.threadIdx.x
        total = zero
        # A grid-stride loop, its start and stride 64-bit (see numba_cuda: cuda.grid is not).
        start = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + tid
        for i in range(start, x.size, np.int64(cuda.gridDim.x) * cuda.blockDim.x):
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

    # Cached on disk as numba_cuda's kernels are; the constants above are part of the key.
    return cuda.jit(kernel, cache=disk_cache())


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
