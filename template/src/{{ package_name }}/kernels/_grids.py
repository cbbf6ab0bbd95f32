# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""2-D grids' launch sizes and checks, for the stencil example and ``laplacian.cu``'s routes.

It ships with them (copier.yml leaves it out of a project that has neither), beside
:func:`.checks.arrays`, which it calls. 2-D kernels use 16 x 16 blocks with ``x`` along the last
(contiguous) axis, so the 32 threads of a warp read 32 neighbouring elements in one memory
transaction (coalescing). ``gridDim.y`` is capped at 65,535 by the hardware, so the grid's ``y``
is capped too and the kernels loop over rows with a grid stride: a (2**21, 8) array would
otherwise need 131,072 blocks along ``y`` and fail to launch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..gpu import is_gpu_array
from . import _MAX_THREADS_PER_BLOCK, checks

if TYPE_CHECKING:
    from collections.abc import Callable

    from .checks import Array, Checked

__all__ = ["BLOCK_2D", "checked_grid", "grid_2d", "host_only"]

BLOCK_2D = (16, 16)
# CUDA's limits on gridDim on every GPU. MAX_GRID_Y is read at each call, so a test can lower it
# to make the kernels' row loop run on a small grid.
MAX_GRID_X = 2**31 - 1
MAX_GRID_Y = 65_535


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


def host_only(a: object) -> bool:
    """The ``accept`` of a route that launches on no device array: every one is refused."""
    return False


def checked_grid(
    name: str,
    u: Array[Any],
    out: Array[Any] | None,
    *,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> Checked:
    """:func:`.checks.arrays` for one 2-D float grid ``u`` and its ``out``; ValueError if not 2-D.

    ``out`` must not overlap ``u`` at all: a stencil reads the neighbours of what it writes.
    """
    checked = checks.arrays(name, {"u": u}, out=out, accept=accept, takes=takes)
    if len(checked.shape) != 2:
        raise ValueError(
            f"{name} needs a 2-D array, got {len(checked.shape)}-D with shape {checked.shape}"
        )
    return checked
