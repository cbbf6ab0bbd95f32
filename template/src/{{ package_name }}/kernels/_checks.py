"""Argument checks shared by every kernel route, so each one fails the same way, with advice."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "FLOAT_DTYPES",
    "Array",
    "check_grid",
    "float_dtype",
    "output",
    "same_device",
    "same_shape",
]

Array: TypeAlias = Any
"""A NumPy array on the CPU path, a CuPy array on the GPU path."""

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def float_dtype(name: str, *arrays: Array) -> np.dtype[Any]:
    """The one floating dtype the arrays share; TypeError (with the fix) for anything else."""
    dtypes = sorted({str(a.dtype) for a in arrays})
    if len(dtypes) != 1:
        raise TypeError(
            f"{name}: the arrays must share one dtype, got {', '.join(dtypes)}; "
            "convert one of them with .astype(...)"
        )
    dtype = np.dtype(dtypes[0])
    if dtype not in FLOAT_DTYPES:
        raise TypeError(
            f"{name} supports float32 and float64 arrays, got {dtype}; "
            "convert with x.astype(numpy.float64)"
        )
    return dtype


def same_shape(name: str, *arrays: Array) -> tuple[int, ...]:
    """The shape the arrays share; ValueError when they differ (no broadcasting: it hides bugs)."""
    shapes = {tuple(a.shape) for a in arrays}
    if len(shapes) != 1:
        raise ValueError(f"{name}: the arrays must have the same shape, got {sorted(shapes)}")
    return shapes.pop()


def same_device(name: str, is_device: Callable[[object], bool], *arrays: Array) -> None:
    """Refuse a mix of host and device arrays instead of copying behind the caller's back."""
    if not all(is_device(a) for a in arrays if a is not None):
        raise TypeError(
            f"{name} got device and host arrays together; move them to one side first "
            "with gpu.to_device(...) or gpu.to_cpu(...)"
        )


def output(
    name: str, out: Array | None, shape: tuple[int, ...], dtype: np.dtype[Any], empty: Any
) -> Array:
    """``out`` after checking it can take the result, or a new array from ``empty``."""
    if out is None:
        return empty(shape, dtype=dtype)
    if tuple(out.shape) != shape or out.dtype != dtype:
        raise ValueError(
            f"{name}: out must have shape {shape} and dtype {dtype}, "
            f"got shape {tuple(out.shape)} and dtype {out.dtype}"
        )
    # Kernels write through a flat view; a strided `out` would silently receive nothing.
    if not out.flags.c_contiguous:
        raise ValueError(f"{name}: out must be C-contiguous; pass a new array or out.copy()")
    return out


def check_grid(name: str, u: Array, out: Array | None, empty: Any) -> tuple[np.dtype[Any], Array]:
    """Check a 2-D float grid and its output; return the dtype and the array to write into."""
    dtype = float_dtype(name, u)
    if u.ndim != 2:
        raise ValueError(f"{name} needs a 2-D array, got {u.ndim}-D with shape {u.shape}")
    result = output(name, out, tuple(u.shape), dtype, empty)
    if out is not None and _may_share_memory(u, out):
        raise ValueError(
            f"{name}: out must not overlap u; the stencil reads what it would overwrite. "
            "Pass a separate array"
        )
    return dtype, result


def _may_share_memory(a: Array, b: Array) -> bool:
    """NumPy's or CuPy's bounds check (conservative: may say True for disjoint strided views)."""
    module = type(a).__module__.split(".")[0]
    if module == "cupy":
        import cupy

        return bool(cupy.may_share_memory(a, b))
    return bool(np.may_share_memory(a, b))
