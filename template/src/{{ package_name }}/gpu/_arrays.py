"""Move arrays between host and device, and follow the namespace of the arrays a caller passes."""

from __future__ import annotations

import importlib
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np

from ._detect import GPUUnavailableError, backend

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import ModuleType

    from numpy.typing import DTypeLike, NDArray

__all__ = [
    "array_namespace",
    "asarray",
    "cuda_device_count",
    "devices",
    "free_memory",
    "get_xp",
    "is_cuda_available",
    "is_gpu_array",
    "to_cpu",
    "to_device",
    "use_device",
]


def is_cuda_available() -> bool:
    """True when this process computes on a CUDA GPU through CuPy."""
    return backend().is_gpu


def cuda_device_count() -> int:
    """Number of CUDA devices this process can use (0 on the CPU backend)."""
    return backend().device_count


def devices() -> list[int]:
    """Ids of the usable CUDA devices, for spreading work over several GPUs; empty on the CPU."""
    return list(range(cuda_device_count()))


def get_xp() -> ModuleType:
    """The array module of the detected backend: ``cupy`` on a usable GPU, else ``numpy``."""
    if backend().is_gpu:
        import cupy

        module: ModuleType = cupy
        return module
    return np


def is_gpu_array(a: object) -> bool:
    """True for a CuPy array. Never imports CuPy: an array cannot exist if CuPy was not imported."""
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(a, cupy.ndarray)


def array_namespace(*arrays: object) -> Any:
    """The array-API namespace of the given arrays (``None`` and Python scalars are ignored).

    Functions that take arrays should use this rather than the global ``xp``, so that they keep
    working on whatever their caller passes. With no arrays, the detected backend's namespace.
    """
    present = [a for a in arrays if a is not None and not isinstance(a, (int, float, complex))]
    if not present:
        return importlib.import_module(f"array_api_compat.{backend().name}")
    from array_api_compat import array_namespace as compat_namespace

    return compat_namespace(*present)


def to_cpu(a: Any) -> NDArray[Any]:
    """A NumPy copy of a device array, or ``numpy.asarray(a)`` for anything already on the host."""
    if is_gpu_array(a):
        host: NDArray[Any] = a.get()
        return host
    return np.asarray(a)


def to_device(a: Any, device: int | None = None) -> Any:
    """``a`` as an array of the detected backend: CuPy (on ``device`` when given) or NumPy."""
    if not backend().is_gpu:
        if device is not None:
            raise GPUUnavailableError(f"device {device} requested, but {backend().reason}")
        return np.asarray(a)
    import cupy

    if device is None:
        return cupy.asarray(a)
    with use_device(device):
        return cupy.asarray(a)


def asarray(obj: Any, dtype: DTypeLike | None = None) -> Any:
    """Like ``xp.asarray``: an array of the detected backend built from ``obj``."""
    return get_xp().asarray(obj, dtype=dtype)


@contextmanager
def use_device(device: int) -> Iterator[None]:
    """Make ``device`` CuPy's current CUDA device inside the block, then restore the previous one.

    Raises
    ------
    GPUUnavailableError
        On the CPU backend: there is no device to select.
    ValueError
        When ``device`` is not one of :func:`devices`.
    """
    count = cuda_device_count()
    if count == 0:
        raise GPUUnavailableError(f"device {device} requested, but {backend().reason}")
    if not 0 <= device < count:
        raise ValueError(
            f"device {device} requested, but this process sees {count} CUDA device(s): "
            f"use 0 to {count - 1}"
        )
    import cupy

    with cupy.cuda.Device(device):
        yield


def free_memory() -> int:
    """Return cached blocks of CuPy's memory pools to the driver; the number of bytes released.

    CuPy keeps freed device memory in a pool for reuse, so ``nvidia-smi`` shows it as used. Call
    this between phases of a program, not in a loop: refilling the pool costs allocations.
    """
    cupy = sys.modules.get("cupy")
    if cupy is None or not backend().is_gpu:
        return 0
    device_pool = cupy.get_default_memory_pool()
    before = int(device_pool.total_bytes())
    device_pool.free_all_blocks()
    cupy.get_default_pinned_memory_pool().free_all_blocks()
    return before - int(device_pool.total_bytes())
