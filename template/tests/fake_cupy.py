# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""A NumPy-backed stand-in for CuPy, so that GPU code paths run on a machine without a GPU.

:func:`make_fake_cupy` builds a module to put in ``sys.modules["cupy"]`` (the ``fake_gpu`` and
``install_fake_cupy`` fixtures of conftest.py do). Where GPU code relies on CuPy, it behaves as
CuPy does, so that a test passing here does not pass by luck:

- ``cupy.ndarray`` holds a NumPy array but is not one: ``numpy.asarray`` on it raises TypeError,
  as CuPy does, so the host is reached through ``.get()`` alone, and arithmetic with a NumPy
  array raises TypeError too. An array remembers the device current at its making
  (``a.device.id``, ``a.data.device_id``).
- ``cupy.<name>`` is NumPy's function of that name, its array results on the current device;
  dtypes are NumPy's. ``cupy``, ``cupy.cuda`` and their submodules are modules, so
  array-api-compat's CuPy namespace imports, and computes on the fake.
- ``cuda.runtime.getDeviceCount()`` gives the count a test asks for, or raises
  ``CUDARuntimeError`` (``status``: CUDA's error code); ``cuda.Device(i)`` is a block in which
  device ``i`` is current; ``cuda.Stream()`` one in which ``cuda.get_current_stream()`` is that
  stream (otherwise the legacy default stream: ``ptr`` 0, ``device_id`` -1).
- ``__cuda_array_interface__`` (version 3, a host address; ``stream``: CuPy's current one, or 1
  for the legacy default stream), which the kernels' argument checks read.

It does not model compiled kernels (a test swaps the kernel for NumPy arithmetic and runs the rest
of the GPU path for real), asynchrony, memory limits, peer access or ``cupy.random``. The
template's own suite proves its GPU module on a fuller fake of the same name.
"""

from __future__ import annotations

import functools
import itertools
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

if TYPE_CHECKING:
    from collections.abc import Callable

    from numpy.typing import NDArray

__all__ = ["CUDARuntimeError", "OutOfMemoryError", "make_fake_cupy", "modules_of"]

# CuPy's words, so that a test matching on them matches the real thing.
_ERROR_NAMES = {
    35: "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
    100: "cudaErrorNoDevice: no CUDA-capable device is detected",
}


class CUDARuntimeError(RuntimeError):
    """Like CuPy's: ``status`` holds the CUDA error code; the message starts with its name."""

    def __init__(self, status: int) -> None:
        self.status = status
        super().__init__(_ERROR_NAMES.get(status, f"cudaError{status}: fake CUDA error"))


class OutOfMemoryError(MemoryError):
    """Stands in for ``cupy.cuda.memory.OutOfMemoryError``."""


class FakeDeviceArray(NDArrayOperatorsMixin):
    """``cupy.ndarray``: data "on a device", reachable from the host only through ``get()``."""

    def __init__(self, host: NDArray[Any], device: Any) -> None:
        self._host = host
        self.device = device  # a cupy.cuda.Device
        # CuPy's memory pointer; the address is a host one, so nothing may dereference it.
        self.data = SimpleNamespace(ptr=host.ctypes.data, device_id=device.id)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        host = self._host
        return {
            "shape": host.shape,
            "typestr": host.dtype.str,
            "data": (host.ctypes.data, False),
            "strides": None if host.flags.c_contiguous else host.strides,
            "stream": self.device.current_stream().ptr or 1,
            "version": 3,
        }

    def get(self, stream: object = None) -> NDArray[Any]:
        """Copy to the host, like ``cupy.ndarray.get``."""
        return self._host.copy()

    def set(self, arr: NDArray[Any], stream: object = None) -> None:
        """Copy a host array into this one, like ``cupy.ndarray.set``."""
        self._host[...] = arr

    def __array__(self, dtype: object = None, copy: object = None) -> NDArray[Any]:
        raise TypeError(
            "Implicit conversion to a NumPy array is not allowed. "
            "Please use `.get()` to construct a NumPy array explicitly."
        )

    def __float__(self) -> float:
        return float(self._host)

    def __len__(self) -> int:
        return len(self._host)

    def __repr__(self) -> str:
        return repr(self._host)

    def __getitem__(self, key: Any) -> Any:
        return _on_device(self._host[_to_host(key)], self.device)

    def __setitem__(self, key: Any, value: Any) -> None:
        # CuPy copies a host array in: allowed here, and only here.
        self._host[_to_host(key)] = value if isinstance(value, np.ndarray) else _to_host(value)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        result = getattr(ufunc, method)(*_to_host(inputs), **_to_host(kwargs))
        if "out" in kwargs:  # CuPy returns the caller's `out` itself
            out = kwargs["out"]
            return out[0] if len(out) == 1 else out
        return _on_device(result, self.device)

    def __array_function__(self, func: Any, types: object, args: Any, kwargs: Any) -> Any:
        # numpy.<function> on a CuPy array is CuPy's function (NEP 18).
        return _on_device(func(*_to_host(args), **_to_host(kwargs)), self.device)

    def __getattr__(self, name: str) -> Any:
        # shape, dtype, ravel, reshape, sum...: NumPy's, on this array's device. Never NumPy's
        # private or dunder names: `__array_interface__` would let numpy.asarray copy implicitly.
        if name.startswith("_"):
            raise AttributeError(name)
        return _on_device(getattr(self._host, name), self.device)


def _to_host(value: Any) -> Any:
    """``value`` with fake arrays replaced by their NumPy data; host arrays refused, as in CuPy."""
    if isinstance(value, FakeDeviceArray):
        return value._host
    if isinstance(value, np.ndarray):
        raise TypeError(f"Unsupported type {type(value)}")
    if isinstance(value, (list, tuple)):
        return type(value)(_to_host(item) for item in value)
    if isinstance(value, dict):
        return {key: _to_host(item) for key, item in value.items()}
    return value


def _on_device(value: Any, device: Any) -> Any:
    """NumPy's results as fake arrays on ``device`` (NumPy scalars as 0-d arrays, as in CuPy);
    a NumPy method as one whose results are."""
    if isinstance(value, (np.ndarray, np.generic)):
        return device._arrays(np.asarray(value), device)
    if isinstance(value, tuple):
        return tuple(_on_device(item, device) for item in value)
    if callable(value) and not isinstance(value, type):
        return _computing_on(value, lambda: device)
    return value


def _computing_on(function: Callable[..., Any], device: Callable[[], Any]) -> Callable[..., Any]:
    """``function`` taking fake arrays and giving its array results on ``device()``."""

    @functools.wraps(function)
    def on_device(*args: Any, **kwargs: Any) -> Any:
        return _on_device(function(*_to_host(args), **_to_host(kwargs)), device())

    return on_device


def make_fake_cupy(
    device_count: object = 1,
    error_status: int | None = None,
    raises: BaseException | None = None,
    cuda_version: int = 13000,
) -> ModuleType:
    """Build a fresh fake ``cupy`` module.

    ``cuda.runtime.getDeviceCount()`` returns ``device_count`` as given (a test may pass -1 or
    None, as a broken runtime could), raises ``CUDARuntimeError(error_status)`` when that is
    given, or raises ``raises``. ``runtimeGetVersion()`` says it is built for ``cuda_version``
    (CUDA's 1000 * major + 10 * minor).
    """
    current = SimpleNamespace(device=0, stream=None)
    pointers = itertools.count(0x1000, 0x10)

    def get_device_count() -> Any:
        if raises is not None:
            raise raises
        if error_status is not None:
            raise CUDARuntimeError(error_status)
        return device_count

    class Device:
        """``cupy.cuda.Device``: a device id, and a block in which that device is current."""

        _arrays = FakeDeviceArray  # its arrays' class (the template's own suite extends both)

        def __init__(self, device: int | None = None) -> None:
            self.id = current.device if device is None else int(device)
            self._previous: list[int] = []

        def __enter__(self) -> Device:
            self._previous.append(current.device)
            current.device = self.id
            return self

        def __exit__(self, *exc_info: object) -> None:
            current.device = self._previous.pop()

        @staticmethod
        def current_stream() -> Stream:
            return current.stream or null

    class Stream:
        """``cupy.cuda.Stream``: ``ptr`` 0 is the legacy default stream, which says device -1."""

        def __init__(self, null: bool = False, non_blocking: bool = False) -> None:
            self.ptr = 0 if null else next(pointers)
            self.device_id = -1 if null else current.device

        def __enter__(self) -> Stream:
            self._previous, current.stream = current.stream, self
            return self

        def __exit__(self, *exc_info: object) -> None:
            current.stream = self._previous

    def asarray(a: Any, dtype: Any = None) -> FakeDeviceArray:
        """Onto the current device, host arrays welcome; an array already there is itself."""
        if not isinstance(a, FakeDeviceArray):
            return FakeDeviceArray(np.array(a, dtype=dtype), Device())
        if a.device.id == current.device and dtype in (None, a.dtype):
            return a
        return FakeDeviceArray(np.array(a._host, dtype=dtype), Device())

    null = Stream(null=True)
    runtime = _module(
        "cupy.cuda.runtime",
        getDeviceCount=get_device_count,
        getDevice=lambda: current.device,
        runtimeGetVersion=lambda: cuda_version,
        driverGetVersion=lambda: 13000,
        CUDARuntimeError=CUDARuntimeError,
    )
    cuda = _module(
        "cupy.cuda",
        Device=Device,
        Stream=Stream,
        get_current_stream=lambda: current.stream or null,
        device=_module("cupy.cuda.device", Device=Device),
        runtime=runtime,
        memory=_module("cupy.cuda.memory", OutOfMemoryError=OutOfMemoryError),
    )
    module = _module(
        "cupy",
        __version__="0.0.0+fake",
        ndarray=FakeDeviceArray,
        asarray=asarray,
        cuda=cuda,
        linalg=_module("cupy.linalg"),
        fft=_module("cupy.fft"),
    )
    for numpy_module, fake in ((np, module), (np.linalg, module.linalg), (np.fft, module.fft)):
        _serve_numpy(numpy_module, fake, Device)
    return module


def _serve_numpy(numpy_module: ModuleType, fake: ModuleType, device: Callable[[], Any]) -> None:
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
        return _computing_on(value, device)

    # The names `from cupy import *` takes: array-api-compat's CuPy namespace does it.
    star = [name for name in numpy_module.__all__ if not name.startswith("_")]
    star = [name for name in star if not isinstance(getattr(numpy_module, name), ModuleType)]
    fake.__dict__.update(__getattr__=lookup, __all__=star)


def _module(name: str, **attributes: Any) -> ModuleType:
    """A module ``name`` holding ``attributes``, and a package.

    Its ``__path__`` makes an import of a child the fake lacks say ``No module named
    'cupy.random'`` rather than ``'cupy' is not a package``.
    """
    module = ModuleType(name)
    module.__dict__.update(attributes, __path__=[])
    return module


def modules_of(fake: ModuleType) -> dict[str, ModuleType]:
    """``fake`` and its submodules by name: the entries to put in ``sys.modules``."""
    found = {fake.__name__: fake}
    for value in vars(fake).values():
        if isinstance(value, ModuleType) and value.__name__.startswith(f"{fake.__name__}."):
            found.update(modules_of(value))
    return found
