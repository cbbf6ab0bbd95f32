# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Launch configuration: how many threads per block and how many blocks, and why.

Rules of thumb, all of which hold from Pascal to Blackwell:

- A block's thread count is a multiple of the 32-thread warp; 128 to 512 threads keep enough warps
  resident per multiprocessor to hide memory latency without running out of registers. 256 is the
  default everywhere here.
- Elementwise kernels and stencils use one thread per element: ``ceil(n / threads)`` blocks.
- Reductions use a *grid-stride loop* over a capped grid (a few blocks per multiprocessor): each
  thread sums many elements in a register, so there is one shared-memory tree and one atomic per
  block instead of one per element.
- 2-D kernels use 16 x 16 blocks with ``x`` along the last (contiguous) axis, so the 32 threads of
  a warp read 32 neighbouring elements in one memory transaction (coalescing). ``gridDim.y`` is
  capped at 65,535 by the hardware, so the grid's ``y`` is capped too and the kernels loop over
  rows with a grid stride: a (2**21, 8) array would otherwise need 131,072 blocks along ``y``
  and fail to launch.

Nothing here imports a GPU library; these are plain integer helpers, tested on any machine.
"""

from __future__ import annotations

__all__ = [
    "BLOCK_2D",
    "MAX_GRID_X",
    "MAX_GRID_Y",
    "REDUCTION_BLOCKS_PER_SM",
    "THREADS_PER_BLOCK",
    "blocks_for",
    "check_threads_per_block",
    "grid_2d",
    "reduction_blocks",
]

THREADS_PER_BLOCK = 256
BLOCK_2D = (16, 16)
# Enough resident blocks to keep every multiprocessor busy while others wait on memory; more only
# adds atomics.
REDUCTION_BLOCKS_PER_SM = 4
# CUDA's limits on gridDim on every GPU. MAX_GRID_Y is read at each call, so a test can lower it
# to make the kernels' row loop run on a small grid.
MAX_GRID_X = 2**31 - 1
MAX_GRID_Y = 65_535
_MAX_THREADS_PER_BLOCK = 1024  # the hardware limit on every CUDA GPU since Fermi


def check_threads_per_block(threads: int) -> int:
    """Return ``threads`` if it is a power of two from 1 to 1024, else raise ValueError.

    Tree reductions halve the active threads at each step, so they need a power of two; small
    values are allowed because the CUDA simulator runs one Python thread per CUDA thread.
    """
    if not 1 <= threads <= _MAX_THREADS_PER_BLOCK or threads & (threads - 1):
        raise ValueError(
            f"threads per block must be a power of two from 1 to {_MAX_THREADS_PER_BLOCK}, "
            f"got {threads}; {THREADS_PER_BLOCK} is a good default"
        )
    return threads


def blocks_for(n: int, threads: int = THREADS_PER_BLOCK) -> int:
    """Blocks needed for one thread per element: ``ceil(n / threads)`` (0 for no elements)."""
    return -(-n // check_threads_per_block(threads))


def reduction_blocks(n: int, sm_count: int, threads: int = THREADS_PER_BLOCK) -> int:
    """Blocks for a grid-stride reduction: one per ``threads`` elements, capped at a few per SM."""
    return min(blocks_for(n, threads), REDUCTION_BLOCKS_PER_SM * max(sm_count, 1))


def grid_2d(shape: tuple[int, int], block: tuple[int, int] = BLOCK_2D) -> tuple[int, int]:
    """Blocks ``(x, y)`` for a ``(rows, cols)`` array with ``block = (x, y)`` threads.

    ``x`` runs along columns (the contiguous axis) and ``y`` along rows, matching
    ``cuda.grid(2)`` and ``blockIdx.x``/``blockIdx.y`` in CUDA C. ``x`` covers every column;
    ``y`` covers every row up to ``MAX_GRID_Y`` blocks, beyond which the kernels' grid-stride
    loop over rows takes each thread to further rows.
    """
    rows, cols = shape
    bx, by = block
    if bx < 1 or by < 1 or bx * by > _MAX_THREADS_PER_BLOCK:
        raise ValueError(
            f"a 2-D block needs 1 to {_MAX_THREADS_PER_BLOCK} threads in all, got {bx} x {by}; "
            f"{BLOCK_2D[0]} x {BLOCK_2D[1]} is a good default"
        )
    if -(-cols // bx) > MAX_GRID_X:  # the driver would refuse it as a bare "invalid argument"
        raise ValueError(
            f"{cols:,} columns need more than CUDA's {MAX_GRID_X:,} blocks of {bx} along x; "
            "split the grid into narrower column bands"
        )
    return -(-cols // bx), min(-(-rows // by), MAX_GRID_Y)
