# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Arithmetic that the CPU loops and the CUDA kernels share: each formula is written once.

Each formula is a plain Python function, compiled twice: with ``numba.njit`` for the CPU loops
of :mod:`.numba_kernels` (here), and with ``cuda.jit(device=True)`` for the kernels of
:mod:`.numba_cuda`. A kernel cannot call the ``njit`` function itself: numba-cuda could, but
numba-cuda-mlir, the maintained CUDA target, does not use the ``numba`` package at all. Both are
inlined, so the shared function costs no call. A fix to the arithmetic reaches both, and the CPU
tests check the formula the GPU runs.

Importing this module imports Numba's CPU compiler, not a CUDA target.
"""

from __future__ import annotations

from typing import Any, cast

import numba

__all__ = ["stencil_point", "stencil_point_source"]


def stencil_point_source(u: Any, i: int, j: int) -> Any:
    """``u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1] - 4 u[i, j]``, in ``u``'s dtype."""
    centre = u[i, j]
    # 4 * centre with the literal 4 would make Numba compute a float32 grid in float64 (1/32 of
    # the float32 rate on most GPUs); doubling twice is exact and stays in the array's dtype.
    twice = centre + centre
    return (u[i - 1, j] + u[i + 1, j]) + (u[i, j - 1] + u[i, j + 1]) - (twice + twice)


stencil_point = cast("Any", numba.njit(inline="always")(stencil_point_source))
""":func:`stencil_point_source` for the CPU loops, inlined into each loop that calls it."""
