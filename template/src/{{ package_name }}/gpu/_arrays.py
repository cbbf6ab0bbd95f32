# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Move arrays between host and device, and follow the namespace of the arrays a caller passes."""

from __future__ import annotations

import importlib
import operator
import sys
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from ._detect import GPUUnavailableError, backend

if TYPE_CHECKING:
    from collections.abc import Iterable
    from contextlib import AbstractContextManager
    from types import ModuleType

    from numpy.typing import DTypeLike, NDArray


# An array, an error or a device of CuPy's cannot exist unless CuPy was imported, so asking
# sys.modules answers "is this CuPy's?" without paying for (or risking) the import.
def loaded_cupy(*path: str) -> Any:
    """CuPy, or its attribute at ``path`` (``"cuda", "Device"``), if imported already; else None.

    Never imports CuPy; a CuPy that is half-imported or lacks the attribute gives None.
    """
    found: Any = sys.modules.get("cupy")
    for name in path:
        found = getattr(found, name, None)
    return found


def is_gpu_array(a: object) -> bool:
    """True for a CuPy array. Never imports CuPy: an array cannot exist if CuPy was not imported."""
    # NumPy's own first; then no CuPy, or one half-imported (compat's look-up would raise).
    if type(a) is np.ndarray or loaded_cupy("ndarray") is None:
        return False
    import array_api_compat  # here, not at import: `import gpu` loads NumPy alone

    return bool(array_api_compat.is_cupy_array(a))


def is_out_of_memory(exc: BaseException) -> bool:
    """True for CuPy's out-of-memory error, looked up without importing CuPy."""
    error = loaded_cupy("cuda", "memory", "OutOfMemoryError")
    return isinstance(error, type) and isinstance(exc, error)


def device_of(a: Any) -> int:
    """The id of the CUDA device a CuPy array lives on."""
    # Not array_api_compat.device(a): it makes a Device object to give the same number.
    return int(a.data.device_id)


def device_of_arrays(name: str, arrays: Iterable[object]) -> int | None:
    """The device of the CuPy arrays among ``arrays``, or None when there are none.

    ``name`` is the function the caller called, for the error.

    Raises
    ------
    ValueError
        When the arrays live on different devices: a kernel runs on one device, and copying
        behind the caller's back would hide a slow transfer.
    """
    devices = {device_of(a) for a in arrays if is_gpu_array(a)}
    if not devices:  # the host call: nothing sorted, no string built
        return None
    found = sorted(devices)
    if len(found) > 1:
        listed = ", ".join(str(device) for device in found[:-1]) + f" and {found[-1]}"
        raise ValueError(
            f"{name} got arrays on CUDA devices {listed}; move them to one device first "
            f"with gpu.to_device(a, device={found[0]})"
        )
    return found[0]


def on_device(device: int) -> AbstractContextManager[Any]:
    """CuPy's context that makes ``device`` current and restores the previous one on exit."""
    context: AbstractContextManager[Any] = loaded_cupy("cuda", "Device")(device)
    return context


def is_cuda_available() -> bool:
    """True when this process computes on a CUDA GPU through CuPy."""
    return backend().is_gpu


def cuda_device_count() -> int:
    """Number of CUDA devices this process can use (0 on the CPU backend)."""
    return backend().device_count


def get_xp() -> ModuleType:
    """The array module of the detected backend: ``cupy`` on a usable GPU, else ``numpy``."""
    return importlib.import_module("cupy") if backend().is_gpu else np


_PYTHON_SCALARS = (bool, int, float, complex)


def array_namespace(*arrays: object) -> Any:
    """The array-API namespace of the given arrays (``None`` and Python scalars are ignored).

    Functions that take arrays should use this rather than the global ``xp``, so that they keep
    working on whatever their caller passes. With no arrays, the detected backend's namespace. A
    NumPy scalar (what ``numpy.mean`` returns) is a NumPy array here, as in array-api-compat.
    """
    import array_api_compat  # it ignores None and scalars too, but refuses a call without arrays

    # By exact type: numpy.float64 and numpy.complex128 subclass float and complex.
    if all(a is None or type(a) in _PYTHON_SCALARS for a in arrays):
        return importlib.import_module(f"array_api_compat.{backend().name}")
    return array_api_compat.array_namespace(*arrays)


def to_cpu(a: Any) -> NDArray[Any]:
    """A NumPy copy of a device array, or ``numpy.asarray(a)`` for anything already on the host."""
    if is_gpu_array(a):
        host: NDArray[Any] = a.get()  # CuPy refuses numpy.asarray: the copy must be explicit
        return host
    return np.asarray(a)


def to_device(a: Any, device: int | None = None) -> Any:
    """``a`` as an array of the detected backend: CuPy (on ``device`` when given) or NumPy.

    A CuPy array on another device is copied to ``device``; on the CPU backend a device array is
    copied to the host.

    Raises
    ------
    GPUUnavailableError
        When ``device`` is given on the CPU backend.
    TypeError, ValueError
        When ``device`` is not an int from 0 to :func:`cuda_device_count` - 1.
    """
    # array-api-compat's to_device moves an array within its library (a NumPy one to "cpu"
    # only), so a host array reaches the GPU through cupy.asarray, which also copies an array
    # of another device onto the current one.
    if device is None:
        return get_xp().asarray(a) if backend().is_gpu else to_cpu(a)
    with on_device(_checked_device(device)):  # the check first: it names a CPU backend's reason
        return get_xp().asarray(a)


def asarray(obj: Any, dtype: DTypeLike | None = None) -> Any:
    """Like ``xp.asarray``: an array of the detected backend built from ``obj``."""
    return get_xp().asarray(obj, dtype=dtype)


def _checked_device(device: object) -> int:
    """``device`` as a device id of this process; the error says which ids exist."""
    # NumPy integers are welcome; a bool is an int to Python but never a device id.
    if isinstance(device, bool) or not isinstance(device, SupportsIndex):
        raise TypeError(
            f"device must be an int, the id of a CUDA device from 0 to the device count - 1; "
            f"got {device!r} of type {type(device).__name__}"
        )
    index = operator.index(device)
    count = cuda_device_count()
    if count == 0:
        raise GPUUnavailableError(f"device {index} requested, but {backend().reason}")
    if not 0 <= index < count:
        raise ValueError(
            f"device {index} requested, but this process sees {count} CUDA device(s): "
            f"device must be from 0 to {count - 1}"
        )
    return index
