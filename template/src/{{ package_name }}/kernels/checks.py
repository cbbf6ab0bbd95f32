# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The argument checks every kernel route shares, for your kernels as for the package's own.

A public kernel function calls :func:`arrays` (any number of named arrays) once, and hands what
it returns to its CPU or GPU twin, which trust it and check nothing again:
:class:`Checked` carries every answer the call needs (the arrays, their dtype, the result's
shape, host or device and which CUDA device), so the dispatcher is told where to run
(``Dispatched.on``) instead of looking again:

.. code-block:: python

    checked = checks.arrays("my_kernel", {"x": x, "y": y}, out=out, out_may_be_input=True)
    a = checks.scalar("my_kernel", "a", a, checked.dtype)
    return _my_kernel.on[checked.device](a, *checked.arrays, out)

An error names the argument that is wrong, so every route fails the same way, with advice:

- arrays: ``None`` and masked arrays are refused (a kernel would ignore the mask); host array-likes
  become NumPy arrays; device arrays stay as they are; host and device arrays are not mixed;
- dtypes: float32 or float64, one for all arrays; shapes: equal, never broadcast (a kernel whose
  inputs differ in shape, a matrix product, checks them before it calls :func:`arrays`);
- ``out``: an array of the inputs' kind (on the host a plain ndarray or memmap, no other
  subclass), shape and dtype, C-contiguous, writable, and not overlapping an input in memory.
  The one overlap allowed is exact aliasing in an elementwise kernel (``axpy(a, x, y, out=y)``):
  each element is read before it is written, by the same thread. A partial overlap
  (``out=buf[1:]`` with ``x=buf[:-1]``) would read elements another thread has already
  overwritten, so it is refused, on the host and on the device alike.

Overlap is decided by NumPy's exact test (``numpy.shares_memory``), the same way for every array
type: NumPy arrays, and device arrays (CuPy, PyCUDA ``GPUArray``, Numba) by the addresses their
``__cuda_array_interface__`` states.

A call costs what its questions cost, so the cheap ones come first: plain NumPy arrays of one
float dtype (``type(x) is numpy.ndarray``, dtypes compared by identity) and an ``out`` that
plainly fits take a path that builds no string and walks no ``sys.modules``; anything else,
and every refusal, goes through the full checks below, which say what was wrong.

Types: a public kernel function takes :class:`Array` arguments and returns an array of the
caller's kind (``ArrayT``), so ``axpy(2.0, x, y)`` is a NumPy array to mypy when ``x``
and ``y`` are (a plain one for a subclass such as ``memmap``, as at run time), and a string,
a list, a number or ``None`` where an array goes is a type error naming the argument. A scalar
is a ``float``, and a host-only route takes ``NDArray[FloatT]`` (``numpy.typing``). The twins
annotate the checked arrays ``Any``: one signature serves NumPy arrays and CuPy's, which have
no type hints:

.. code-block:: python

    def my_kernel(
        a: float, x: Array[ArrayT], y: Array[ArrayT], *, out: Array[ArrayT] | None = None
    ) -> ArrayT: ...
"""

from __future__ import annotations

import numbers
import warnings
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar, cast

import numpy as np

from ..gpu import is_gpu_array
from ..gpu._arrays import device_of, device_of_arrays, loaded_cupy

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from numpy.typing import NDArray

__all__ = [
    "FLOAT_DTYPES",
    "Array",
    "ArrayT",
    "Checked",
    "FloatT",
    "address_range",
    "arrays",
    "elementwise",
    "float_dtype",
    "grid",
    "host_only",
    "is_device_array",
    "overlaps",
    "reduction",
    "scalar",
]


_KindT_co = TypeVar("_KindT_co", covariant=True)


class Array(Protocol[_KindT_co]):
    """What mypy requires of an array argument: a shape, a dtype, and ``__array__``.

    NumPy arrays have all three. The device arrays of every route (CuPy, Numba, PyCUDA) come
    from libraries without type hints: mypy sees them as ``Any``, which fits. A string, a list,
    a number or ``None`` is a type error that names the argument.

    ``__array__`` is there for its type, the kind of array a kernel gives back: for a NumPy array
    a plain ``ndarray`` of its shape type and dtype, so a parameter ``x: Array[ArrayT]`` binds
    ``ArrayT`` to it, and a function that returns ``ArrayT`` returns, to mypy, what it returns
    at run time. A subclass binds the plain ``ndarray`` too, which is the truth: the kernels
    compute into plain arrays, so ``axpy(2.0, m, m)`` of a ``numpy.memmap`` is an ``ndarray``
    (a promise of ``memmap`` would let ``result.flush()`` pass mypy and fail at run time).
    """

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's shape."""

    @property
    def dtype(self) -> np.dtype[Any]:
        """The array's element type."""

    def __array__(self) -> _KindT_co:
        """The array on the host: its type is the kind of array a kernel gives back."""


# The result's array type: `def f(x: Array[ArrayT]) -> ArrayT` returns a NumPy array for one.
# (A comment, not a docstring: numpydoc cannot document a TypeVar, so the API pages leave it out.)
ArrayT = TypeVar("ArrayT", bound="Array[Any]")
# A NumPy float type (float32, float64), for host-only code: `NDArray[FloatT]` in and out.
FloatT = TypeVar("FloatT", bound="np.floating[Any]")

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# One global look-up each on the cheap path, where `np.ndarray` and FLOAT_DTYPES[0] take two.
_FLOAT32, _FLOAT64 = FLOAT_DTYPES
_NDARRAY = np.ndarray
_PLAIN_NUMBERS = (float, int)  # exactly these types: a bool, an int to Python, is refused
# The work numpy.shares_memory may spend before it gives up (and the overlap is refused): far
# above what an `out`, which is C-contiguous, and an input of a few dimensions take. Typed Any:
# NumPy 2.4's stubs allow only -1 and 0 here (2.5's any int), though the runtime takes any int.
_OVERLAP_WORK: Any = 10_000


class Checked(NamedTuple):
    """Everything a checked call needs, resolved once: the twins and the dispatcher ask nothing.

    Returned by :func:`arrays`. ``device`` is what ``Dispatched.on`` takes.
    """

    arrays: tuple[Any, ...]
    """The inputs, in the order given: NumPy arrays (host array-likes converted) or device
    arrays, as they came, but ``out`` itself for an input it is exactly: ``out is y`` asks that."""
    out: Any
    """The caller's ``out``, checked, or None."""
    dtype: np.dtype[Any]
    """The one float dtype of every array."""
    shape: tuple[int, ...]
    """The result's shape: what ``out`` has, and what a new result must have."""
    on_device: bool
    """True for device arrays (of any library), False for host arrays."""
    device: int | None
    """The CUDA device of CuPy arrays; None for host arrays (and other libraries' arrays)."""


# DLPack's device types of CUDA memory (kDLCUDA, kDLCUDAManaged), and how each library that
# states its arrays' device copies one to the host.
_DLPACK_CUDA = frozenset({2, 13})
_HOST_COPY = {"torch": "{}.cpu()", "jax": "jax.device_get({})", "jaxlib": "jax.device_get({})"}


# --- what an array is and where it lives ----------------------------------------------------------


def is_device_array(a: object) -> bool:
    """True for an array in GPU memory of any library: CuPy, Numba, PyCUDA, ... Never imports one.

    CuPy arrays are recognised by ``gpu.is_gpu_array``; an array that says where it lives
    (``__dlpack_device__``: torch, JAX) by its answer, since their classes define
    ``__cuda_array_interface__`` for CPU arrays too; the others by that protocol (looked up on
    the type, so no property runs) or by PyCUDA's ``gpudata`` attribute.
    """
    if type(a) is np.ndarray:
        return False
    if is_gpu_array(a):
        return True
    if (where := getattr(type(a), "__dlpack_device__", None)) is not None:
        return bool(where(a)[0] in _DLPACK_CUDA)
    return hasattr(type(a), "__cuda_array_interface__") or (
        hasattr(a, "gpudata") and hasattr(a, "shape")
    )


def host_only(a: object) -> bool:
    """The ``accept`` of a route that launches on no device array: every one is refused."""
    return False


def _addresses(a: Any) -> NDArray[Any]:
    """``a`` as NumPy sees memory: a host array itself, a device array as addresses only.

    A device array becomes a NumPy array over the device addresses its
    ``__cuda_array_interface__`` states, which nothing ever reads: NumPy's overlap test
    compares addresses and strides only, so one exact test serves every library. CuPy's own
    is not enough: ``cupy.may_share_memory`` says False for two arrays over one allocation
    reached through different memory objects (``cupy.from_dlpack``, ``memptr=``), and
    ``cupy.shares_memory`` launches a kernel and waits for it.
    """
    if isinstance(a, np.ndarray):  # NumPy's, and NumPy subclasses standing in for device arrays
        return a
    interface = a.__cuda_array_interface__
    keys = ("data", "shape", "typestr", "strides")  # not the stream: nothing here touches data
    host: NDArray[Any] = np.asarray(
        SimpleNamespace(__array_interface__={k: interface.get(k) for k in keys} | {"version": 3})
    )
    return host


def _shares_memory(a: NDArray[Any], b: NDArray[Any]) -> bool:
    """NumPy's exact answer, bounded: an overlap too hard to solve quickly counts as one."""
    try:
        return bool(np.shares_memory(a, b, max_work=_OVERLAP_WORK))
    except np.exceptions.TooHardError:
        return True


def _same_elements(a: NDArray[Any], b: NDArray[Any]) -> bool:
    """True when ``a`` and ``b`` are views of the same elements in the same layout."""
    return (
        a.shape == b.shape
        and a.strides == b.strides
        and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    )


# --- single checks --------------------------------------------------------------------------------


def float_dtype(name: str, *arrays: Array[Any]) -> np.dtype[Any]:
    """The one floating dtype the arrays share; TypeError (with the fix) for anything else."""
    if arrays:  # the answer without a string: one dtype, compared by value, and a float one
        first = arrays[0].dtype
        if first in FLOAT_DTYPES and all(a.dtype == first for a in arrays):
            return np.dtype(first)
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


def scalar(name: str, label: str, value: object, dtype: np.dtype[Any]) -> Any:
    """``value`` as a scalar of ``dtype``; TypeError for None, bools, complex, strings, arrays.

    ``numpy.float64(None)`` is NaN, so without this check ``axpy(None, x, y)`` would quietly
    return NaNs.
    """
    try:  # free unless raised: the common float pays nothing for the overflow's message
        if type(value) in _PLAIN_NUMBERS:  # the usual answer, before the ABC's look-up
            return dtype.type(value)
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
            raise TypeError(
                f"{name}: {label} must be a real number, got {type(value).__name__} {value!r}; "
                f"pass a float (for a 0-d array: float({label}))"
            )
        return dtype.type(value)
    except OverflowError:  # an int past 2**1024: Python's own message names no argument
        raise OverflowError(f"{name}: {label} overflows {dtype}: pass a smaller number") from None


def _inputs(
    name: str, arrays: Mapping[str, object], accept: Callable[[object], bool], takes: str
) -> tuple[list[Any], bool]:
    """The arguments as arrays, and whether they are device arrays (all of them) or not (none)."""
    checked: list[Any] = []
    for label, a in arrays.items():
        if a is None:
            raise TypeError(f"{name}: {label} is None; pass an array")
        if isinstance(a, np.ma.MaskedArray):
            raise TypeError(
                f"{name}: {label} is a masked array, and the kernel would ignore its mask; "
                f"pass {label}.filled(value) or {label}.compressed()"
            )
        if accept(a):
            checked.append(a)
        elif is_device_array(a):
            kind = f"{type(a).__module__}.{type(a).__name__}"
            host = _HOST_COPY.get(kind.partition(".")[0], "gpu.to_cpu({}) for CuPy")
            raise TypeError(
                f"{name} takes {takes}, got a {kind} for {label}; copy it to the host first "
                f"({host.format(label)}), or use a kernel route that launches on it (one that "
                f"takes CuPy arrays: cupy.from_dlpack({label}) shares its memory)"
            )
        else:
            checked.append(np.asarray(a))
    on_device = [accept(a) for a in checked]
    if any(on_device) and not all(on_device):
        raise TypeError(
            f"{name} got device and host arrays together; move them to one side first "
            "with gpu.to_device(...) or gpu.to_cpu(...)"
        )
    return checked, bool(on_device) and all(on_device)


def _output(
    name: str,
    out: object,
    *,
    shape: tuple[int, ...],
    dtype: np.dtype[Any],
    reads: Mapping[str, Array[Any]],
    on_device: bool,
    accept: Callable[[object], bool],
    alias_ok: bool,
) -> tuple[Any, ...]:
    """Refuse an ``out`` that cannot take the result, or that overlaps what the kernel reads.

    Returns the inputs, ``out`` itself in place of each that ``out`` is exactly (``alias_ok``),
    so that a twin asks ``out is y``, a pointer comparison, instead of asking about memory again.
    """
    kind = "device array of the inputs' type" if on_device else "NumPy array"
    if isinstance(out, np.ma.MaskedArray):
        raise TypeError(f"{name}: out is a masked array; pass a plain {kind}")
    if on_device != accept(out) or not (on_device or isinstance(out, np.ndarray)):
        if on_device or is_device_array(out):
            raise TypeError(
                f"{name} got device and host arrays together; move them to one side first "
                "with gpu.to_device(...) or gpu.to_cpu(...)"
            )
        raise TypeError(f"{name}: out must be a {kind}, got {type(out).__name__}")
    # Subclasses may reshape otherwise: a numpy.matrix stays 2-D, and a flat loop writes its rows.
    if not on_device and type(out) not in (np.ndarray, np.memmap):
        raise TypeError(
            f"{name}: out is a {type(out).__name__}, a NumPy subclass the kernels cannot write "
            "through safely; pass out.view(numpy.ndarray), which shares its memory"
        )
    target: Any = out
    if tuple(target.shape) != shape or target.dtype != dtype:
        raise ValueError(
            f"{name}: out must have shape {shape} and dtype {dtype}, "
            f"got shape {tuple(target.shape)} and dtype {target.dtype}"
        )
    flags = getattr(target, "flags", None)
    # Kernels write through a flat view; a strided `out` would silently receive nothing.
    if not getattr(flags, "c_contiguous", True):
        raise ValueError(f"{name}: out must be C-contiguous; pass a new array or out.copy()")
    if not getattr(flags, "writeable", True):
        raise ValueError(f"{name}: out is read-only; pass a writable array")
    checked: list[Any] = []
    written = _addresses(target)
    for label, a in reads.items():
        read = _addresses(a)
        aliased = _shares_memory(written, read)
        if aliased and not (alias_ok and _same_elements(written, read)):
            allowed = f"; out may be {label} itself, exactly" if alias_ok else ""
            raise ValueError(
                f"{name}: out overlaps {label} in memory, so the kernel would read elements it "
                f"has already overwritten{allowed}. Pass a separate array"
            )
        checked.append(out if aliased else a)
    return tuple(checked)


# --- the cheap path: plain NumPy arrays, or CuPy arrays, that plainly fit -------------------------


def _host_out_fits(out: Any, reads: Sequence[Any], alias_ok: bool) -> bool:
    """True when a plain ndarray ``out`` of the right shape and dtype plainly passes ``_output``.

    That is: contiguous, writable, and apart from every input (or one exactly, when
    ``alias_ok``). False means "ask fully".
    """
    flags = out.flags
    if not flags.carray:  # C-contiguous, writeable (and aligned) in one read, not two
        return False
    owns = flags.owndata
    for a in reads:
        if a is out:
            if not alias_ok:
                return False
        # Two arrays that each own their memory were allocated apart: no address range needed.
        elif not (owns and a.flags.owndata) and np.may_share_memory(out, a):
            return False
    return True


def _device_out_fits(out: Any, reads: Sequence[Any], alias_ok: bool) -> bool:
    """``_host_out_fits`` for CuPy arrays: True when an ``out`` of the right shape and dtype fits.

    A CuPy array owns no memory of its own that another could not share (``cupy.ndarray(...,
    memptr=...)``, two arrays made from one DLPack capsule), so overlap is decided by address
    ranges, which for C-contiguous arrays are ``[data.ptr, data.ptr + nbytes)``: no strides to
    walk. A strided input, or an overlap, is left to the full checks (False), which say what
    is wrong or let an exact alias (a view of the same elements) through.
    """
    flags = out.flags
    # CuPy's arrays have no read-only flag; a stand-in's that has one is honoured.
    if not (flags.c_contiguous and getattr(flags, "writeable", True)):
        return False
    start = out.data.ptr
    stop = start + out.nbytes
    for a in reads:
        if a is out:
            if not alias_ok:
                return False
        elif not a.flags.c_contiguous:
            return False
        elif start != stop and a.nbytes:  # an array of no elements overlaps nothing
            low = a.data.ptr
            if low < stop and start < low + a.nbytes:
                return False
    return True


def _one_device(name: str, arrays: Sequence[Any], out: Any) -> int:
    """The device of CuPy ``arrays`` and ``out`` (when given); the full error when they differ."""
    device = device_of(arrays[0])
    for a in (*arrays, out) if out is not None else arrays:
        if device_of(a) != device:
            device_of_arrays(name, (*arrays, out))  # raises, naming every device
    return device


# --- shapes ---------------------------------------------------------------------------------------


def _same_shape(name: str, labels: Sequence[str], values: Sequence[Any]) -> tuple[int, ...]:
    """The one shape of every array: never broadcast, it hides bugs."""
    shape = tuple(values[0].shape)
    for label, a in zip(labels[1:], values[1:], strict=True):
        if tuple(a.shape) != shape:
            which = f" ({label} against {labels[0]})" if len(values) > 2 else ""
            raise ValueError(
                f"{name}: the arrays must have the same shape, got {shape} and "
                f"{tuple(a.shape)}{which}"
            )
    return shape


# --- what a public function calls -----------------------------------------------------------------


def arrays(
    name: str,
    arrays: Mapping[str, Array[Any]],
    *,
    out: Array[Any] | None = None,
    out_shape: tuple[int, ...] | None = None,
    out_may_be_input: bool = False,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> Checked:
    """Check any number of named arrays and their ``out`` once; return every answer the call needs.

    Parameters
    ----------
    name
        The public function's name, which every error starts with.
    arrays
        The inputs by the names the caller knows them by (``{"a": a, "b": b}``): an error names
        the one that is wrong.
    out
        The caller's ``out=``, or None.
    out_shape
        The result's shape, when it is not the inputs' (``()`` for a reduction).
    out_may_be_input
        Allow ``out`` to be an input exactly (same elements, same layout), as an elementwise
        kernel can. Any other overlap with an input is always refused.
    accept, takes
        The device arrays the route launches on (CuPy's by default), and how an error says so.

    Returns
    -------
    Checked
        The arrays (host array-likes as NumPy arrays), ``out``, the dtype, the result's shape,
        host or device, and the CuPy device.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.ones(4)
    >>> checked = arrays("norm", {"x": x}, out_shape=())
    >>> checked.shape, checked.device
    ((), None)
    >>> arrays("axpy", {"x": x, "y": x}, out=x[1:], out_may_be_input=True)
    Traceback (most recent call last):
    ...
    ValueError: axpy: out must have shape (4,) and dtype float64, got shape (3,) and dtype float64
    """
    values: tuple[Any, ...] = tuple(arrays.values())
    if not values:
        raise TypeError(f"{name}: no arrays to check; pass at least one")
    first = values[0]
    # The cheap path: arrays of one exact type, NumPy's own or (for a route that takes them)
    # CuPy's, of one float dtype compared by identity (NumPy's built-in dtypes are single
    # objects; an equal dtype that is another object just takes the full checks), and of one
    # shape. Anything else, a refusal included, takes the full checks.
    kind: type[Any] | None = type(first)
    if kind is _NDARRAY or (accept is is_gpu_array and kind is loaded_cupy("ndarray")):
        dtype: Any = first.dtype  # a float dtype once past the checks
        if dtype is _FLOAT64 or dtype is _FLOAT32:
            shape = first.shape
            for a in values[1:]:
                if type(a) is not kind or a.dtype is not dtype or a.shape != shape:
                    kind = None
                    break
        else:
            kind = None
    else:
        kind = None
    if kind is None:
        checked, on_device = _inputs(name, arrays, accept, takes)
        values = tuple(checked)
        dtype = float_dtype(name, *values)
        # A tuple, as every answer gives it: a device array's shape may be another sequence.
        shape = _same_shape(name, tuple(arrays), values)
    else:
        on_device = kind is not _NDARRAY
    if out_shape is not None:
        shape = out_shape
    if out is not None and not (
        type(out) is kind
        and out.shape == shape
        and out.dtype is dtype
        and (_device_out_fits if on_device else _host_out_fits)(out, values, out_may_be_input)
    ):
        values = _output(
            name,
            out,
            shape=shape,
            dtype=dtype,
            reads=dict(zip(arrays, values, strict=True)),
            on_device=on_device,
            accept=accept,
            alias_ok=out_may_be_input,
        )
    # The device is asked last, of device arrays only: the one question the dispatcher skips.
    device = None
    if on_device and kind is not None:  # CuPy arrays, every one
        device = _one_device(name, values, out)
    elif on_device:  # the route's device arrays: CuPy's among them have a device, others none
        device = device_of_arrays(name, (*values, out))
    # tuple.__new__ directly: a NamedTuple's own __new__ is a Python function, a third of a call.
    return _new_checked(Checked, (values, out, dtype, shape, on_device, device))


_new_checked = tuple.__new__


# --- deprecated: the last release's forms, gone in the next one -----------------------------------


def _deprecated(old: str, instead: str) -> None:
    message = f"checks.{old} is deprecated and goes in the next release: {instead}"
    warnings.warn(message, DeprecationWarning, stacklevel=3)


def elementwise(
    name: str,
    x: Array[ArrayT],
    y: Array[ArrayT],
    out: Array[ArrayT] | None,
    *,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> tuple[ArrayT, ArrayT, np.dtype[Any]]:
    """Deprecated: ``checks.arrays(name, {"x": x, "y": y}, out=out, out_may_be_input=True)``."""
    instead = 'call arrays(name, {"x": x, "y": y}, out=out, out_may_be_input=True)'
    _deprecated("elementwise", instead)
    checked = arrays(
        name, {"x": x, "y": y}, out=out, out_may_be_input=True, accept=accept, takes=takes
    )
    return cast("ArrayT", checked.arrays[0]), cast("ArrayT", checked.arrays[1]), checked.dtype


def reduction(
    name: str,
    x: Array[ArrayT],
    out: Array[ArrayT] | None,
    *,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> tuple[ArrayT, np.dtype[Any]]:
    """Deprecated: ``checks.arrays(name, {"x": x}, out=out, out_shape=())``."""
    _deprecated("reduction", 'call arrays(name, {"x": x}, out=out, out_shape=())')
    checked = arrays(name, {"x": x}, out=out, out_shape=(), accept=accept, takes=takes)
    return cast("ArrayT", checked.arrays[0]), checked.dtype


def grid(
    name: str,
    u: Array[ArrayT],
    out: Array[ArrayT] | None,
    *,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> tuple[ArrayT, np.dtype[Any]]:
    """Deprecated: ``checks.arrays(name, {"u": u}, out=out)``, then a test of its 2-D shape."""
    _deprecated("grid", 'call arrays(name, {"u": u}, out=out) and test len(checked.shape)')
    checked = arrays(name, {"u": u}, out=out, accept=accept, takes=takes)
    if len(checked.shape) != 2:
        raise ValueError(
            f"{name} needs a 2-D array, got {len(checked.shape)}-D with shape {checked.shape}"
        )
    return cast("ArrayT", checked.arrays[0]), checked.dtype


def address_range(a: Array[Any]) -> tuple[int, int] | None:
    """Deprecated: NumPy's ``byte_bounds``; None for an array of no elements."""
    _deprecated("address_range", "use numpy.lib.array_utils.byte_bounds")
    view = _addresses(a)
    start, stop = np.lib.array_utils.byte_bounds(view)
    return None if view.size == 0 else (int(start), int(stop))


def overlaps(a: Array[Any], b: Array[Any]) -> bool:
    """Deprecated: NumPy's ``may_share_memory``, on device addresses too."""
    _deprecated("overlaps", "use numpy.may_share_memory")
    return bool(np.may_share_memory(_addresses(a), _addresses(b)))
