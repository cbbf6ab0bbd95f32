# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""What the kernels must compute, written apart from the package: the tests' independent answers."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["reference_laplacian"]


def reference_laplacian(u: Any) -> Any:
    """The five-point Laplacian in plain NumPy slices; the rim of the result is zero."""
    out = np.zeros_like(u)
    out[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4 * u[1:-1, 1:-1]
    return out
