# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The full fake CuPy, for the template's own tests: the render's seed fake, extended.

In the suite render this file replaces the render's tests/fake_cupy.py (the seed, kept beside it
as fake_cupy_seed.py), so the same fixtures give this one. It builds on the seed's module, whose
docstring says what both model, and adds what the edges of the template's library need:

- Devices that check, as CuPy's do. ``cuda.runtime.setDevice`` and ``cuda.Device(i).use()`` make
  ``i`` current; an id out of range raises ``CUDARuntimeError`` 101. Arithmetic, ufuncs and
  ``cupy.<function>`` on arrays of a device that is not current raise ValueError, as CuPy does
  between devices without peer access; ``.copy()`` copies onto the current device. Devices
  compare by id.
- ``Stream.null``, ``Stream.use``, ``non_blocking`` and ``synchronize()`` (returns at once).
- ``cupy.array``, ``cupy.asnumpy``, ``ndarray.adopt(host, device)`` (wraps without a copy), and
  an ``ndarray`` class of each module's own, so that a test may patch one fake's arrays alone.

It does not model either: compiled kernels, asynchrony (a missing ``synchronize()`` goes
unnoticed), memory limits and pools, one current device per host thread, device checks in array
methods (``a.sum()`` runs whatever the current device), ``cupy.random`` and the other
submodules, DLPack, ``cupyx``.
"""

from __future__ import annotations

import functools
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

import fake_cupy_seed
from fake_cupy_seed import CUDARuntimeError, OutOfMemoryError, modules_of

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from numpy.typing import DTypeLike, NDArray

__all__ = [
    "CUDARuntimeError",
    "FakeDeviceArray",
    "OutOfMemoryError",
    "make_fake_cupy",
    "modules_of",
]


class _InvalidDevice(CUDARuntimeError):
    """CUDA's error 101, which only this fake raises, in CuPy's words."""

    def __init__(self) -> None:
        super().__init__(101)
        self.args = ("cudaErrorInvalidDevice: invalid device ordinal",)


def _check_current(value: Any, current: int) -> None:
    """Refuse fake arrays in ``value`` that are not on ``current``, as CuPy without peer access."""
    if isinstance(value, fake_cupy_seed.FakeDeviceArray):
        if value.device.id != current:
            raise ValueError(
                f"The device where the array resides ({value.device.id}) is different from the "
                f"current device ({current}). Peer access is unavailable between these devices."
            )
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check_current(item, current)
    elif isinstance(value, dict):
        _check_current(list(value.values()), current)


class FakeDeviceArray(fake_cupy_seed.FakeDeviceArray):
    """The seed's ``cupy.ndarray``, with the device checks and the interface CuPy's has."""

    # Its fake's Device and get_current_stream. The current device is ``Device().id``, never
    # ``runtime.getDevice()``, which some tests patch to fool the library, not the fake.
    _cuda: ClassVar[SimpleNamespace]

    @classmethod
    def adopt(cls, host: NDArray[Any], device: int) -> FakeDeviceArray:
        """Wrap ``host`` (not copied) as an array on ``device``."""
        return cls(host, cls._cuda.Device(device))

    @property
    def device_id(self) -> int:
        """The id of the device this array lives on."""
        return int(self.device.id)

    def get(self, stream: object = None, order: Any = "C") -> NDArray[Any]:
        """Copy to the host, like ``cupy.ndarray.get``."""
        return np.array(self._host, order=order, copy=True)

    def copy(self, order: Any = "C") -> FakeDeviceArray:
        """A copy on the current device, which may differ from this array's (as in CuPy)."""
        return self.adopt(self._host.copy(order=order), self._cuda.Device().id)

    def __int__(self) -> int:
        return int(self._host)

    def __bool__(self) -> bool:
        return bool(self._host)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __str__(self) -> str:
        return str(self._host)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        _check_current((inputs, kwargs), self._cuda.Device().id)
        return super().__array_ufunc__(ufunc, method, *inputs, **kwargs)

    def __array_function__(self, func: Any, types: object, args: Any, kwargs: Any) -> Any:
        _check_current((args, kwargs), self._cuda.Device().id)
        return super().__array_function__(func, types, args, kwargs)


def make_fake_cupy(
    device_count: object = 1,
    error_status: int | None = None,
    raises: BaseException | None = None,
    cuda_version: int = 13000,
) -> ModuleType:
    """Build a fresh fake ``cupy``: the seed's (its docstring gives the arguments), extended."""
    module = fake_cupy_seed.make_fake_cupy(device_count, error_status, raises, cuda_version)
    cuda = module.cuda
    seed_device: Any = cuda.Device
    seed_stream: Any = cuda.Stream
    # The range setDevice checks: the count as given, not getDeviceCount(), which may raise.
    count = device_count if type(device_count) is int else 0

    class ndarray(FakeDeviceArray):  # CuPy's name
        __module__ = "cupy"

    # The seed's classes are each module's own, so Any to mypy: the ignores below say so.
    class Device(seed_device):  # type: ignore[misc]
        __module__ = "cupy.cuda"
        _arrays = ndarray

        def __enter__(self) -> Device:
            if not 0 <= self.id < count:
                raise _InvalidDevice
            super().__enter__()
            return self

        def use(self) -> None:
            """Make this device current with no block to leave, like ``Device.use``."""
            Device(self.id).__enter__()

        def synchronize(self) -> None:
            """Nothing to wait for: the fake runs everything at once."""

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Device) and other.id == self.id

        def __hash__(self) -> int:
            return hash(self.id)

        def __repr__(self) -> str:
            return f"<CUDA Device {self.id}>"

    class Stream(seed_stream):  # type: ignore[misc]
        __module__ = "cupy.cuda"
        null: ClassVar[Stream]  # the legacy default stream

        def __init__(self, null: bool = False, non_blocking: bool = False) -> None:
            super().__init__(null, non_blocking)
            self.non_blocking = non_blocking

        def use(self) -> Stream:
            """Make this stream current with no block to leave, like ``Stream.use``."""
            self.__enter__()
            return self

        def synchronize(self) -> None:
            """Nothing to wait for: the fake runs everything at once."""

    Stream.null = Stream(null=True)
    seed_current_stream = cuda.get_current_stream

    def get_current_stream() -> Stream:
        stream: Stream = seed_current_stream()
        return stream if stream.ptr else Stream.null

    ndarray._cuda = SimpleNamespace(Device=Device, get_current_stream=get_current_stream)

    def asarray(a: Any, dtype: DTypeLike | None = None, order: Any = None) -> FakeDeviceArray:
        if isinstance(a, FakeDeviceArray):
            if a.device_id == Device().id and (dtype is None or np.dtype(dtype) == a.dtype):
                return a
            a = a._host
        return ndarray(np.array(a, dtype=dtype, order=order), Device())

    def array(a: Any, dtype: DTypeLike | None = None, copy: bool = True) -> FakeDeviceArray:
        host = a._host if isinstance(a, FakeDeviceArray) else a
        return ndarray(np.array(host, dtype=dtype, copy=True), Device())

    def asnumpy(a: Any, stream: object = None, order: Any = "C") -> NDArray[Any]:
        return a.get(order=order) if isinstance(a, FakeDeviceArray) else np.asarray(a, order=order)

    def set_device(device: int) -> None:
        Device(device).use()

    vars(cuda.runtime).update(setDevice=set_device)
    vars(cuda.device).update(Device=Device)
    vars(cuda).update(Device=Device, Stream=Stream, get_current_stream=get_current_stream)
    vars(module).update(ndarray=ndarray, asarray=asarray, array=array, asnumpy=asnumpy)
    for numpy_module, fake in ((np, module), (np.linalg, module.linalg), (np.fft, module.fft)):
        # The seed's NumPy functions, on this module's devices, refusing another device's arrays.
        fake_cupy_seed._serve_numpy(numpy_module, fake, Device)
        vars(fake)["__getattr__"] = functools.partial(_checking, vars(fake)["__getattr__"], Device)
    return module


def _checking(lookup: Callable[[str], Any], device: Callable[[], Any], name: str) -> Any:
    """``lookup(name)``, a function of which refuses arrays not on the current device."""
    value = lookup(name)
    if isinstance(value, type) or not callable(value):
        return value

    @functools.wraps(value)
    def on_current_device(*args: Any, **kwargs: Any) -> Any:
        _check_current((args, kwargs), device().id)
        return value(*args, **kwargs)

    return on_current_device
