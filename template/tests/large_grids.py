# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The Laplacian past element 2**31 (``tests/large_arrays.py``): one grid with a single 1.0 where a
32-bit index would have wrapped, and the result each route must give for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from large_arrays import device_room, zeros

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["SHAPE", "check_laplacian", "check_laplacian_result", "host_grid"]

SHAPE = (2**16 + 2, 2**15 + 2)  # rows * cols > 2**31: the last rows lie past it
SPOT = (-3, 5)  # element 2_147_581_955 of the grid


def check_laplacian_result(out: Any) -> None:
    """The Laplacian of a grid with one 1.0 at ``SPOT``: -4 there, 1 beside it, 0 elsewhere."""
    row, col = SPOT
    assert float(out[row, col]) == -4.0
    neighbours = [out[row + 1, col], out[row - 1, col], out[row, col - 1], out[row, col + 1]]
    assert [float(value) for value in neighbours] == [1.0] * 4
    assert float(abs(out).sum()) == 8.0  # abs(out) is a temporary: counted by the callers


def check_laplacian(laplacian: Callable[[Any], Any]) -> None:
    """``laplacian(u)`` of a CuPy grid reaches the rows past 2**31 (u, out and abs(out): 3)."""
    device_room(arrays=3, elements=int(np.prod(SHAPE)))
    u = zeros(SHAPE)
    u[SPOT] = 1.0
    check_laplacian_result(laplacian(u))


def host_grid() -> Any:
    """A float32 NumPy grid of ``SHAPE`` with one 1.0 at ``SPOT``."""
    u = np.zeros(SHAPE, dtype=np.float32)
    u[SPOT] = 1.0
    return u
