# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""A NumPy-backed stand-in for CuPy, so that GPU code paths run on a machine without a GPU.

The full fake, for the template's own tests: in the suite render it replaces the render's seed of
it (template/tests/fake_cupy.py, the same API, kept as fake_cupy_seed.py), so the same fixtures
give this one.

:func:`make_fake_cupy` builds a module to put in ``sys.modules["cupy"]`` (the ``fake_gpu`` and
``install_fake_cupy`` fixtures of conftest.py do). It behaves as CuPy does wherever code written
for CuPy relies on it, so that a test passing here does not pass by luck:

- Device arrays (``cupy.ndarray``) hold a NumPy array but are not NumPy arrays. ``numpy.asarray``
  on one raises TypeError, as CuPy does, so the only way to the host is ``.get()`` (or
  ``cupy.asnumpy``), and mixing device and host arrays in arithmetic raises TypeError.
- Each array remembers the device that was current when it was made (``a.device.id``).
  ``cuda.Device(i)`` is a context manager that makes ``i`` current and restores the previous
  device on exit; ``cuda.runtime.getDevice``/``setDevice``/``getDeviceCount`` read and change the
  same state, and an id out of range raises ``CUDARuntimeError`` 101. Arithmetic, ufuncs and
  ``cupy.<function>`` on arrays of a device that is not current raise ValueError, as CuPy does
  between devices without peer access. ``cupy.asarray`` copies an array of another device onto
  the current one; ``.copy()`` copies onto the current device.
- ``cupy.<name>`` is NumPy's function of that name, its array results on the current device;
  dtypes and scalar types (``cupy.float32``, ``cupy.dtype``) are NumPy's own. The same holds in
  ``cupy.linalg`` and ``cupy.fft``. ``cupy``, ``cupy.cuda`` and their submodules are modules
  (:func:`modules_of` lists them for ``sys.modules``), so array-api-compat's CuPy namespace
  imports, and computes on the fake.
- ``cuda.get_current_stream()`` (the legacy default stream: ``ptr`` 0), ``cuda.Stream`` as a
  context manager, ``synchronize()`` (returns at once), ``cuda.runtime.CUDARuntimeError`` with
  ``.status`` and ``cuda.memory.OutOfMemoryError``.
- ``__cuda_array_interface__`` (its ``stream``: CuPy's current one) and ``.data.ptr`` for code
  that reads them; the pointer is a host address, so nothing may dereference it as device memory.

It does not model: compiled kernels (``ElementwiseKernel``, ``ReductionKernel``, ``RawModule``,
``fuse``, Numba launches), so a test swaps the compiled kernel for a NumPy stand-in and runs the
rest of the GPU path for real; asynchrony (everything completes at once, so a missing
``synchronize()`` goes unnoticed); memory limits (OutOfMemoryError only where a test raises
it); memory pools; peer access; one current device per host thread (the fake has one for
the process); device checks in array methods (``a.sum()`` runs whatever the current device);
``cupy.random`` and the other submodules; DLPack; ``cupyx``.
"""

from __future__ import annotations

import functools
import itertools
import operator
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar, SupportsIndex

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from numpy.typing import DTypeLike, NDArray

__all__ = [
    "CUDARuntimeError",
    "FakeDevice",
    "FakeDeviceArray",
    "OutOfMemoryError",
    "make_fake_cupy",
    "modules_of",
]

_ERROR_NAMES = {
    35: "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
    100: "cudaErrorNoDevice: no CUDA-capable device is detected",
    101: "cudaErrorInvalidDevice: invalid device ordinal",
}
# CuPy's words, so that a test matching on them matches the real thing.
_IMPLICIT_CONVERSION = (
    "Implicit conversion to a NumPy array is not allowed. "
    "Please use `.get()` to construct a NumPy array explicitly."
)


class CUDARuntimeError(RuntimeError):
    """Like CuPy's: ``status`` holds the CUDA error code; the message starts with its name."""

    def __init__(self, status: int) -> None:
        self.status = status
        super().__init__(_ERROR_NAMES.get(status, f"cudaError{status}: fake CUDA error"))


class OutOfMemoryError(MemoryError):
    """Stands in for ``cupy.cuda.memory.OutOfMemoryError``."""


class _State:
    """The devices of one fake CuPy: how many there are, which is current, which stream."""

    def __init__(
        self, device_count: object, error_status: int | None, raises: BaseException | None
    ) -> None:
        self.device_count = device_count
        self.error_status = error_status
        self.raises = raises
        self.current = 0
        self.stream: FakeStream | None = None  # None until the first get_current_stream()

    def get_device_count(self) -> Any:
        if self.raises is not None:
            raise self.raises
        if self.error_status is not None:
            raise CUDARuntimeError(self.error_status)
        return self.device_count

    def set_device(self, device: int) -> None:
        count = self.device_count if type(self.device_count) is int else 0
        if not 0 <= device < count:
            raise CUDARuntimeError(101)
        self.current = device

    def check_current(self, array: FakeDeviceArray) -> None:
        if array.device_id != self.current:
            raise ValueError(
                f"The device where the array resides ({array.device_id}) is different from the "
                f"current device ({self.current}). Peer access is unavailable between these "
                "devices."
            )


class FakeDevice:
    """``cupy.cuda.Device``: a device id, and a block in which that device is current."""

    _state: ClassVar[_State]

    def __init__(self, device: SupportsIndex | None = None) -> None:
        self.id = self._state.current if device is None else operator.index(device)
        self._previous: list[int] = []

    def __enter__(self) -> FakeDevice:
        self._previous.append(self._state.current)
        self._state.set_device(self.id)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._state.set_device(self._previous.pop())

    def use(self) -> None:
        """Make this device current, like ``cupy.cuda.Device.use``."""
        self._state.set_device(self.id)

    def synchronize(self) -> None:
        """Nothing to wait for: the fake runs everything at once."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FakeDevice) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


class FakeStream:
    """``cupy.cuda.Stream``: ``ptr`` 0 is the legacy default stream; ``with`` makes it current."""

    _state: ClassVar[_State]
    _pointers: ClassVar[Iterator[int]] = itertools.count(0x1000, 0x10)
    null: ClassVar[FakeStream]  # the legacy default stream, set for each fake module

    def __init__(self, null: bool = False, non_blocking: bool = False) -> None:
        self.ptr = 0 if null else next(self._pointers)
        # As in CuPy: a stream belongs to the device current at its making; the legacy default
        # stream (``Stream.null``) to none, and says -1.
        self.device_id = -1 if null else self._state.current
        self.non_blocking = non_blocking
        self._previous: list[FakeStream | None] = []

    def __enter__(self) -> FakeStream:
        self._previous.append(self._state.stream)
        self._state.stream = self
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._state.stream = self._previous.pop()

    def use(self) -> FakeStream:
        """Make this stream current, like ``cupy.cuda.Stream.use``."""
        self._state.stream = self
        return self

    def synchronize(self) -> None:
        """Nothing to wait for: the fake runs everything at once."""


def _to_host(value: Any, *, check_device: bool) -> Any:
    """``value`` with fake arrays replaced by their NumPy data; host arrays refused, as in CuPy."""
    if isinstance(value, FakeDeviceArray):
        if check_device:
            value._state.check_current(value)
        return value._host
    if isinstance(value, np.ndarray):
        raise TypeError(f"Unsupported type {type(value)}")
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(item, check_device=check_device) for item in value)
    if isinstance(value, dict):
        return {key: _to_host(item, check_device=check_device) for key, item in value.items()}
    return value


def _to_device(value: Any, cls: type[FakeDeviceArray], device: int) -> Any:
    """NumPy results as fake arrays on ``device``; NumPy scalars become 0-d arrays, as in CuPy."""
    if isinstance(value, np.ndarray):
        return cls.adopt(value, device)
    if isinstance(value, np.generic):
        return cls.adopt(np.asarray(value), device)
    if isinstance(value, tuple):
        return tuple(_to_device(item, cls, device) for item in value)
    return value


class FakeDeviceArray(NDArrayOperatorsMixin):
    """``cupy.ndarray``: data "on a device", reachable from the host only through ``get()``."""

    __slots__ = ("_host", "device_id")
    _state: ClassVar[_State]
    _device_type: ClassVar[type[FakeDevice]]

    def __init__(self, shape: Any, dtype: DTypeLike = float, order: Any = "C") -> None:
        """Like ``cupy.ndarray(shape, dtype)``: an uninitialised array on the current device."""
        self._host: NDArray[Any] = np.empty(shape, dtype=dtype, order=order)
        self.device_id = self._state.current

    @classmethod
    def adopt(cls, host: NDArray[Any], device: int) -> FakeDeviceArray:
        """Wrap ``host`` (not copied) as an array on ``device``."""
        array = cls.__new__(cls)
        array._host = host
        array.device_id = device
        return array

    # --- what CuPy arrays have and NumPy arrays do not --------------------------------------

    @property
    def device(self) -> FakeDevice:
        """The device this array lives on (``.id`` is its number)."""
        return self._device_type(self.device_id)

    @property
    def data(self) -> SimpleNamespace:
        """CuPy's memory pointer: ``ptr`` (a host address here) and ``device_id``."""
        return SimpleNamespace(ptr=self._host.ctypes.data, device_id=self.device_id)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """The CUDA array interface (version 3); the pointer is a host address.

        ``stream`` is CuPy's current stream, as CuPy gives it: its pointer, or 1 for the legacy
        default stream. A consumer that honours it makes the host wait for that stream.
        """
        host = self._host
        current = self._state.stream
        return {
            "shape": host.shape,
            "typestr": host.dtype.str,
            "data": (host.ctypes.data, False),
            "strides": None if host.flags.c_contiguous else host.strides,
            "stream": current.ptr if current is not None and current.ptr else 1,
            "version": 3,
        }

    def get(self, stream: object = None, order: Any = "C") -> NDArray[Any]:
        """Copy to the host, like ``cupy.ndarray.get``."""
        return np.array(self._host, order=order, copy=True)

    def set(self, arr: NDArray[Any], stream: object = None) -> None:
        """Copy a host array into this one, like ``cupy.ndarray.set``."""
        self._host[...] = arr

    def copy(self, order: Any = "C") -> FakeDeviceArray:
        """A copy on the current device, which may differ from this array's (as in CuPy)."""
        return self.adopt(self._host.copy(order=order), self._state.current)

    # --- conversions CuPy allows, and the one it refuses ------------------------------------

    def __array__(self, dtype: object = None, copy: object = None) -> NDArray[Any]:
        raise TypeError(_IMPLICIT_CONVERSION)

    def __float__(self) -> float:
        return float(self._host)

    def __int__(self) -> int:
        return int(self._host)

    def __bool__(self) -> bool:
        return bool(self._host)

    def __len__(self) -> int:
        return len(self._host)

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __repr__(self) -> str:
        return repr(self._host)

    def __str__(self) -> str:
        return str(self._host)

    # --- indexing: no copy, the result stays on this array's device -------------------------

    def __getitem__(self, key: Any) -> Any:
        return _to_device(self._host[_to_host(key, check_device=False)], type(self), self.device_id)

    def __setitem__(self, key: Any, value: Any) -> None:
        if not isinstance(value, np.ndarray):  # CuPy copies a host array in: allowed here
            value = _to_host(value, check_device=False)
        self._host[_to_host(key, check_device=False)] = value

    # --- arithmetic, ufuncs and NumPy functions run "on the current device" -----------------

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        result = getattr(ufunc, method)(
            *_to_host(inputs, check_device=True), **_to_host(kwargs, check_device=True)
        )
        if "out" in kwargs:  # CuPy returns the caller's `out` itself
            out = kwargs["out"]
            return out[0] if len(out) == 1 else out
        return _to_device(result, type(self), self._state.current)

    def __array_function__(
        self, func: Callable[..., Any], types: object, args: Any, kwargs: Any
    ) -> Any:
        result = func(*_to_host(args, check_device=True), **_to_host(kwargs, check_device=True))
        return _to_device(result, type(self), self._state.current)

    # --- everything else a NumPy array has (shape, dtype, reshape, ravel, sum, fill, ...) ---

    def __getattr__(self, name: str) -> Any:
        # Never hand out NumPy's private or dunder attributes: `__array_interface__` would let
        # numpy.asarray copy the data implicitly, which CuPy refuses.
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._host, name)
        if not callable(value):
            return _to_device(value, type(self), self.device_id)
        cls, device = type(self), self.device_id

        def method(*args: Any, **kwargs: Any) -> Any:
            host_args = _to_host(args, check_device=False)
            result = value(*host_args, **_to_host(kwargs, check_device=False))
            return _to_device(result, cls, device)

        return method


def make_fake_cupy(
    device_count: object = 1,
    error_status: int | None = None,
    raises: BaseException | None = None,
    cuda_version: int = 13000,
) -> ModuleType:
    """Build a fresh fake ``cupy`` module, with its own devices.

    ``cuda.runtime.getDeviceCount()`` returns ``device_count`` as given (a test may pass -1 or
    None, as a broken runtime could), raises ``CUDARuntimeError(error_status)`` when that is
    given, or raises ``raises``. ``runtimeGetVersion()`` says it is built for ``cuda_version``
    (CUDA's 1000 * major + 10 * minor).
    """
    state = _State(device_count, error_status, raises)

    # Classes of this module's own, bound to its devices; named and placed as CuPy's are.
    class Device(FakeDevice):
        __module__ = "cupy.cuda"
        _state = state

    class Stream(FakeStream):
        __module__ = "cupy.cuda"
        _state = state

    class ndarray(FakeDeviceArray):  # CuPy's name
        __module__ = "cupy"
        __slots__ = ()
        _state = state
        _device_type = Device

    Stream.null = Stream(null=True)

    def current_stream() -> FakeStream:
        return state.stream or Stream.null

    def asarray(a: Any, dtype: DTypeLike | None = None, order: Any = None) -> FakeDeviceArray:
        if isinstance(a, FakeDeviceArray):
            if a.device_id == state.current and (dtype is None or np.dtype(dtype) == a.dtype):
                return a
            return ndarray.adopt(np.array(a._host, dtype=dtype, order=order), state.current)
        return ndarray.adopt(np.array(a, dtype=dtype, order=order), state.current)

    def array(a: Any, dtype: DTypeLike | None = None, copy: bool = True) -> FakeDeviceArray:
        host = a._host if isinstance(a, FakeDeviceArray) else a
        return ndarray.adopt(np.array(host, dtype=dtype, copy=True), state.current)

    def asnumpy(a: Any, stream: object = None, order: Any = "C") -> NDArray[Any]:
        return a.get(order=order) if isinstance(a, FakeDeviceArray) else np.asarray(a, order=order)

    runtime = _module(
        "cupy.cuda.runtime",
        getDeviceCount=state.get_device_count,
        getDevice=lambda: state.current,
        setDevice=state.set_device,
        runtimeGetVersion=lambda: cuda_version,
        driverGetVersion=lambda: 13000,
        CUDARuntimeError=CUDARuntimeError,
    )
    cuda = _module(
        "cupy.cuda",
        Device=Device,
        Stream=Stream,
        get_current_stream=current_stream,
        device=_module("cupy.cuda.device", Device=Device),
        runtime=runtime,
        memory=_module("cupy.cuda.memory", OutOfMemoryError=OutOfMemoryError),
    )
    module = _module(
        "cupy",
        __version__="0.0.0+fake",
        ndarray=ndarray,
        asarray=asarray,
        array=array,
        asnumpy=asnumpy,
        cuda=cuda,
        linalg=_module("cupy.linalg"),
        fft=_module("cupy.fft"),
    )

    def numpy_on_device(numpy_module: ModuleType, fake: ModuleType) -> None:
        """Serve ``fake.<name>`` as NumPy's ``numpy_module.<name>``, on the current device."""

        def lookup(name: str) -> Any:
            # NumPy's private and dunder names (__version__) are not CuPy's.
            if name.startswith("_"):
                raise AttributeError(f"module {fake.__name__!r} has no attribute {name!r}")
            value = getattr(numpy_module, name)  # AttributeError for a name NumPy lacks
            if isinstance(value, ModuleType):
                raise AttributeError(f"the fake CuPy does not model {fake.__name__}.{name}")
            if isinstance(value, type) or not callable(value):
                return value  # dtypes, scalar types and constants are NumPy's own

            def on_device(*args: Any, **kwargs: Any) -> Any:
                host_args = _to_host(args, check_device=True)
                result = value(*host_args, **_to_host(kwargs, check_device=True))
                return _to_device(result, ndarray, state.current)

            on_device.__name__ = name
            return on_device

        fake.__dict__.update(__getattr__=lookup, __all__=list(_star_names(numpy_module)))

    for numpy_module, fake in ((np, module), (np.linalg, module.linalg), (np.fft, module.fft)):
        numpy_on_device(numpy_module, fake)
    return module


@functools.cache
def _star_names(numpy_module: ModuleType) -> tuple[str, ...]:
    """The names ``from cupy import *`` takes (array-api-compat's CuPy namespace does it)."""
    return tuple(
        name
        for name in numpy_module.__all__
        if not name.startswith("_") and not isinstance(getattr(numpy_module, name), ModuleType)
    )


def _module(name: str, **attributes: Any) -> ModuleType:
    """A module ``name`` holding ``attributes``, and a package.

    Its ``__path__`` makes an import of a child the fake lacks say ``No module named
    'cupy.random'`` rather than ``'cupy' is not a package``.
    """
    module = ModuleType(name)
    module.__dict__.update(attributes, __path__=[])
    return module


def modules_of(fake: ModuleType) -> dict[str, ModuleType]:
    """``fake`` and its submodules by name: the entries to put in ``sys.modules``.

    With them, ``import cupy.cuda.device`` (and ``from cupy.linalg import *``) find the fake, as
    array-api-compat's CuPy namespace needs.
    """
    found = {fake.__name__: fake}
    for value in vars(fake).values():
        if isinstance(value, ModuleType) and value.__name__.startswith(f"{fake.__name__}."):
            found.update(modules_of(value))
    return found
