# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The stencil example's CUDA kernel (Numba): a 2-D grid with a grid-stride loop over rows.

The kernel calls :func:`._numba_shared.stencil_point_source` compiled as an inlined device
function: the same Python function the CPU loop compiles with ``numba.njit``. It compiles with
:mod:`.numba_cuda`'s target when it is imported, so only GPU paths and simulator tests import it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import disk_cache
from ._grids import BLOCK_2D, grid_2d
from ._numba_shared import stencil_point_source
from .numba_cuda import _DEFAULT_STREAM, cuda, cupy_stream, launch

# cupy_stream too: the dispatcher takes the launcher and its stream from one module.
__all__ = ["cupy_stream", "launch_laplacian"]

# Inlined: numba-cuda compiles a device function that is not inlined for the current device, which
# needs a driver even to emit PTX.
_stencil_point: Any = cuda.jit(device=True, inline="always")(stencil_point_source)


def _laplacian(u: Any, out: Any) -> None:
    # x runs along columns, so a warp reads contiguous memory. 64-bit indices (see numba_cuda:
    # cuda.grid is not): a row may hold 2**31 columns or more.
    col = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    first_row = np.int64(cuda.blockIdx.y) * cuda.blockDim.y + cuda.threadIdx.y
    rows, cols = u.shape
    if col >= cols:  # the last blocks overhang the grid
        return
    # A grid-stride loop over rows: the launch caps the grid's y at MAX_GRID_Y blocks.
    for row in range(first_row, rows, np.int64(cuda.gridDim.y) * cuda.blockDim.y):
        if 0 < row < rows - 1 and 0 < col < cols - 1:
            out[row, col] = _stencil_point(u, row, col)
        else:
            out[row, col] = 0


# Cached on disk as numba_cuda's kernels are. Numba checks a cached kernel against its own file
# only, and the formula of _numba_shared.py is compiled into this one: after editing that file
# alone, delete the cache (the *.nbi and *.nbc files of this module in __pycache__, or under
# NUMBA_CACHE_DIR). Installing a release writes every file anew: Numba compiles again then.
_laplacian_kernel: Any = cuda.jit(_laplacian, cache=disk_cache())


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
