"""A NumPy-backed stand-in for CuPy, so that GPU code paths run on a machine without a GPU.

It provides what the package's GPU module touches: ``ndarray``, ``asarray``/``asnumpy``, the
``cuda.runtime`` device queries and their ``CUDARuntimeError``, ``cuda.Device``,
``cuda.memory.OutOfMemoryError`` and the memory pools. Any other attribute is the NumPy function of
the same name, with array results turned into fake device arrays.
"""

from __future__ import annotations

import contextlib
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from numpy.typing import NDArray

_ERROR_NAMES = {
    35: "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
    100: "cudaErrorNoDevice: no CUDA-capable device is detected",
}


class FakeDeviceArray(np.ndarray[Any, Any]):
    """An array that claims to live on the device; ``get()`` copies it to the host."""

    def get(self) -> NDArray[Any]:
        """Copy to the host, like ``cupy.ndarray.get``."""
        return self.view(np.ndarray).copy()


class CUDARuntimeError(RuntimeError):
    """Like CuPy's: ``status`` holds the CUDA error code; the message starts with its name."""

    def __init__(self, status: int) -> None:
        self.status = status
        super().__init__(_ERROR_NAMES.get(status, f"cudaError{status}: fake CUDA error"))


class OutOfMemoryError(MemoryError):
    """Stands in for ``cupy.cuda.memory.OutOfMemoryError``."""


class _Pool:
    def __init__(self) -> None:
        self.held = 1024
        self.freed = 0

    def total_bytes(self) -> int:
        return self.held

    def free_all_blocks(self) -> None:
        self.freed += 1
        self.held = 0


def _to_device(value: Any) -> Any:
    return value.view(FakeDeviceArray) if isinstance(value, np.ndarray) else value


def make_fake_cupy(device_count: int = 1, error_status: int | None = None) -> ModuleType:
    """Build a fresh fake ``cupy`` module.

    ``getDeviceCount()`` returns ``device_count``, or raises ``CUDARuntimeError(error_status)``
    when ``error_status`` is given. ``module.current_devices`` records ``cuda.Device`` switches.
    """

    def get_device_count() -> int:
        if error_status is not None:
            raise CUDARuntimeError(error_status)
        return device_count

    selected: list[int] = []

    @contextlib.contextmanager
    def device(index: int) -> Iterator[None]:
        selected.append(index)
        yield

    module = ModuleType("cupy")
    module.__dict__.update(
        __version__="0.0.0+fake",
        ndarray=FakeDeviceArray,
        asarray=lambda a, dtype=None: np.array(a, dtype=dtype).view(FakeDeviceArray),
        asnumpy=lambda a: np.asarray(a).copy(),
        current_devices=selected,
        cuda=SimpleNamespace(
            runtime=SimpleNamespace(
                getDeviceCount=get_device_count,
                runtimeGetVersion=lambda: 13000,
                driverGetVersion=lambda: 13000,
                CUDARuntimeError=CUDARuntimeError,
            ),
            Device=device,
            memory=SimpleNamespace(OutOfMemoryError=OutOfMemoryError),
        ),
    )
    pools = {"device": _Pool(), "pinned": _Pool()}
    module.__dict__.update(
        get_default_memory_pool=lambda: pools["device"],
        get_default_pinned_memory_pool=lambda: pools["pinned"],
        pools=pools,
    )

    def numpy_on_device(name: str) -> Callable[..., Any]:
        function = getattr(np, name)
        if not callable(function):
            raise AttributeError(name)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return _to_device(function(*args, **kwargs))

        return wrapper

    module.__dict__["__getattr__"] = numpy_on_device
    return module
