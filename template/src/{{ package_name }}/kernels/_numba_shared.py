"""Numba code that the CPU loops and the CUDA kernels share: each formula is written once.

numba-cuda compiles a ``numba.njit`` function that a ``@cuda.jit`` kernel calls as a device
function for the GPU, and the CPU loops of :mod:`.numba_kernels` call the same function compiled
for the CPU (numba-cuda's documentation: "Writing CPU/GPU compatible code"). A fix to the
arithmetic therefore reaches both, and the CPU tests check the formula the GPU runs.

Importing this module imports Numba's CPU compiler, not numba-cuda.
"""

from __future__ import annotations

from typing import Any, cast

import numba

__all__ = ["stencil_point"]


def _stencil_point(u: Any, i: int, j: int) -> Any:
    centre = u[i, j]
    # 4 * centre with the literal 4 would make Numba compute a float32 grid in float64 (1/32 of
    # the float32 rate on most GPUs); doubling twice is exact and stays in the array's dtype.
    twice = centre + centre
    return (u[i - 1, j] + u[i + 1, j]) + (u[i, j - 1] + u[i, j + 1]) - (twice + twice)


stencil_point = cast("Any", numba.njit(cache=True)(_stencil_point))
"""``u[i-1, j] + u[i+1, j] + u[i, j-1] + u[i, j+1] - 4 u[i, j]`` at an interior point ``(i, j)``.

Compiled for the CPU on its first call, and for the GPU inside each kernel that calls it.
``stencil_point.py_func`` is the plain Python function (the CUDA simulator runs that one).
"""
