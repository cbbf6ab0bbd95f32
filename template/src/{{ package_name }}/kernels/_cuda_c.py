"""The CUDA C source shipped with the package (``laplacian.cu``) and its NumPy equivalent."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import numpy as np

from ._checks import Array, check_grid

__all__ = ["KERNELS", "SOURCE_FILE", "kernel_name", "laplacian_cpu", "read_source"]

SOURCE_FILE = "laplacian.cu"
KERNELS = {np.dtype(np.float32): "laplacian_5pt_f32", np.dtype(np.float64): "laplacian_5pt_f64"}


def read_source() -> str:
    """The text of ``laplacian.cu``, read from the installed package (wheel, sdist or source)."""
    return files(__package__ or __name__).joinpath(SOURCE_FILE).read_text(encoding="utf-8")


def kernel_name(dtype: np.dtype[Any]) -> str:
    """The ``extern "C"`` kernel of ``laplacian.cu`` for float32 or float64."""
    return KERNELS[np.dtype(dtype)]


def laplacian_cpu(u: Array, *, out: Array | None = None) -> Array:
    """The NumPy equivalent of ``laplacian.cu``: in place on the interior, one temporary."""
    u = np.asarray(u)
    _, result = check_grid("laplacian", u, out, np.empty)
    for edge in (result[:1], result[-1:], result[:, :1], result[:, -1:]):  # slices: 0 rows is fine
        edge[...] = 0
    if min(u.shape) >= 3:
        inner = result[1:-1, 1:-1]
        np.add(u[:-2, 1:-1], u[2:, 1:-1], out=inner)
        inner += u[1:-1, :-2]
        inner += u[1:-1, 2:]
        inner -= 4 * u[1:-1, 1:-1]
    return result
