# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The CUDA C source shipped with the package (``laplacian.cu``) and its NumPy equivalent.

Kernel files include the package's own headers (``grid_helpers.cuh``: index helpers every 2-D
kernel needs) with ``#include "name.cuh"``. :func:`read_source` pastes those headers in, so every
loader compiles one self-contained string: NVRTC (CuPy's ``RawModule``, cuda.core's ``Program``)
and nvcc (PyCUDA's ``SourceModule``) need no include path, and the package works from a wheel, an
editable install or a zip.

Every index in ``laplacian.cu`` is 64-bit, its sizes included (launch with int64 scalars): a
32-bit one wraps past 2**31 elements, silently. ``_grids.grid_2d`` bounds the block counts.
"""

from __future__ import annotations

import functools
import re
import threading
from importlib.resources import files
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from ._grids import checked_grid, host_only

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import NDArray

__all__ = [
    "HEADERS",
    "KERNELS",
    "SOURCE_FILE",
    "FloatT",
    "compile_once",
    "kernel_name",
    "laplacian_cpu",
    "laplacian_numpy",
    "read_source",
]

# A NumPy float type (float32, float64), for the host-only routes: `NDArray[FloatT]` in and out.
FloatT = TypeVar("FloatT", bound="np.floating[Any]")
SOURCE_FILE = "laplacian.cu"
HEADERS = ("grid_helpers.cuh",)
KERNELS = {np.dtype(np.float32): "laplacian_5pt_f32", np.dtype(np.float64): "laplacian_5pt_f64"}

_INCLUDE = re.compile(r'^#include "([^"]+)"[^\n]*$', flags=re.MULTILINE)
K = TypeVar("K")
R = TypeVar("R")


class compile_once(Generic[K, R]):  # a decorator, spelt like functools.cache
    """A cache of compiles of :func:`read_source`'s text: one per key, however many threads ask.

    ``functools.cache`` lets threads that miss together each compile (NVRTC or nvcc once more, a
    second module in the context). A hit takes no lock: a dict read is atomic, with or without
    the GIL. A forked child keeps the lock as it was; it cannot use CUDA anyway (use ``spawn``).
    """

    def __init__(self, function: Callable[[K], R]) -> None:
        functools.update_wrapper(self, function)
        self._compile = function
        self._done: dict[K, R] = {}
        self._lock = threading.Lock()

    def __call__(self, key: K) -> R:
        try:
            return self._done[key]
        except KeyError:
            with self._lock:
                if key not in self._done:
                    self._done[key] = self._compile(key)
                return self._done[key]

    def cache_clear(self) -> None:
        """Forget every compile (for tests)."""
        with self._lock:
            self._done.clear()


def _package_text(name: str) -> str:
    return files(__package__ or __name__).joinpath(name).read_text(encoding="utf-8")


def read_source(name: str = SOURCE_FILE) -> str:
    """The text of a kernel file, with each of the package's :data:`HEADERS` pasted in.

    Other ``#include`` lines (toolkit headers) are left for the compiler.
    """

    def paste(match: re.Match[str]) -> str:
        header = match.group(1)
        if header not in HEADERS:
            return match.group(0)
        return f"// --- {header}, pasted by {__name__}.read_source\n{_package_text(header)}"

    return _INCLUDE.sub(paste, _package_text(name))


def kernel_name(dtype: np.dtype[Any]) -> str:
    """The ``extern "C"`` kernel of ``laplacian.cu`` for float32 or float64."""
    return KERNELS[np.dtype(dtype)]


def laplacian_numpy(u: Any, out: Any) -> Any:
    """The NumPy equivalent of ``laplacian.cu`` on checked arguments (see ``_grids.checked_grid``).

    In place on the interior, one temporary.
    """
    result = np.empty(u.shape, dtype=u.dtype) if out is None else out
    for edge in (result[:1], result[-1:], result[:, :1], result[:, -1:]):  # slices: 0 rows is fine
        edge[...] = 0
    if min(u.shape) >= 3:
        inner = result[1:-1, 1:-1]
        np.add(u[:-2, 1:-1], u[2:, 1:-1], out=inner)
        inner += u[1:-1, :-2]
        inner += u[1:-1, 2:]
        inner -= 4 * u[1:-1, 1:-1]
    return result


def laplacian_cpu(u: NDArray[FloatT], *, out: NDArray[FloatT] | None = None) -> NDArray[FloatT]:
    """The 5-point Laplacian (zero edges) of a host array with NumPy, as ``laplacian.cu`` does it.

    Parameters
    ----------
    u
        A 2-D float32 or float64 array.
    out
        A C-contiguous NumPy array of ``u``'s shape and dtype, not overlapping ``u``; new when
        omitted.

    Returns
    -------
    numpy.ndarray
        ``out``, or a new array.
    """
    checked = checked_grid("laplacian", u, out, accept=host_only, takes="host arrays only")
    result: NDArray[FloatT] = laplacian_numpy(checked.arrays[0], out)
    return result
