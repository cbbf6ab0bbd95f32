# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The argument checks every kernel route shares, for your kernels as for the package's own.

A public kernel function calls :func:`arrays` once and hands its :class:`Checked` answer to its
CPU or GPU twin, which trust it and check nothing again (``Dispatched.on`` takes its device):
each route's ``axpy`` is the pattern, and docs/extending.md writes a kernel of your own on it.

Every route refuses the same arguments with the same errors, each naming the argument and the
fix. The one overlap of ``out`` with an input allowed is exact aliasing in an elementwise kernel
(``axpy(a, x, y, out=y)``): each element is read before it is written, by the same thread. A
partial overlap (``out=buf[1:]`` with ``x=buf[:-1]``) would read elements another thread has
already overwritten, so it is refused, on the host and on the device alike.

A call costs what its questions cost, so the cheap ones come first: NumPy's (or CuPy's) own
arrays of one float dtype (and a NumPy ``out`` that plainly fits) build no string and walk no
``sys.modules``; anything else, every refusal included, takes the full checks.
"""

from __future__ import annotations

import numbers
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

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
    "arrays",
    "float_dtype",
    "is_device_array",
    "scalar",
]

_KindT_co = TypeVar("_KindT_co", covariant=True)


class Array(Protocol[_KindT_co]):
    """What mypy requires of an array argument: a shape, a dtype, and ``__array__``.

    NumPy arrays have all three; the device arrays of every route come from libraries without
    type hints, ``Any`` to mypy, which fits; a string, a list, a number or ``None`` does not.
    ``__array__`` is there for its type, the kind of array a kernel gives back: a plain
    ``ndarray`` for any NumPy array, so ``x: Array[ArrayT]`` binds ``ArrayT`` to what the call
    returns at run time. For a ``numpy.memmap`` that is the truth: the kernels compute into plain
    arrays, and a promise of ``memmap`` would let ``result.flush()`` pass mypy and fail.
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

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# One global look-up each on the cheap path, where `np.ndarray` and FLOAT_DTYPES[0] take two.
_FLOAT32, _FLOAT64 = FLOAT_DTYPES
_NDARRAY = np.ndarray
_PLAIN_NUMBERS = (float, int)  # exactly these types: a bool, an int to Python, is refused
# The work numpy.shares_memory may spend before it gives up (and the overlap is refused): far
# above what an `out`, which is C-contiguous, and an input of a few dimensions take. Typed Any:
# NumPy 2.4's stubs allow only -1 and 0 here (2.5's any int), though the runtime takes any int.
_OVERLAP_WORK: Any = 10_000
# DLPack's device types of CUDA memory (kDLCUDA, kDLCUDAManaged), and how each library that
# states its arrays' device copies one to the host.
_DLPACK_CUDA = frozenset({2, 13})
_HOST_COPY = {"torch": "{}.cpu()", "jax": "jax.device_get({})", "jaxlib": "jax.device_get({})"}
_MIXED = (
    "got device and host arrays together; move them to one side first "
    "with gpu.to_device(...) or gpu.to_cpu(...)"
)


class Checked(NamedTuple):
    """Everything a checked call needs, resolved once: the twins and the dispatcher ask nothing."""

    arrays: tuple[Any, ...]
    """The inputs in the order given, host array-likes as NumPy arrays, but ``out`` itself for an
    input it is exactly: a twin asks ``out is y``, a pointer comparison."""
    out: Any
    """The caller's ``out``, checked, or None."""
    dtype: np.dtype[Any]
    """The one float dtype of every array."""
    shape: tuple[int, ...]
    """The result's shape: what ``out`` has, and what a new result must have."""
    on_device: bool
    """True for device arrays (of any library), False for host arrays."""
    device: int | None
    """The CUDA device of CuPy arrays, which ``Dispatched.on`` takes; None for the others."""


def is_device_array(a: object) -> bool:
    """True for an array in GPU memory of any library: CuPy, Numba, PyCUDA, ... Never imports one.

    An array that says where it lives (``__dlpack_device__``: torch, JAX) is taken at its word,
    since their classes define ``__cuda_array_interface__`` for CPU arrays too; the others are
    known by that protocol (looked up on the type, so no property runs) or PyCUDA's ``gpudata``.
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


def float_dtype(name: str, *arrays: Array[Any]) -> np.dtype[Any]:
    """The one floating dtype the arrays share; TypeError (with the fix) for anything else."""
    dtypes = sorted({str(a.dtype) for a in arrays})
    if len(dtypes) != 1:
        raise TypeError(
            f"{name}: the arrays must share one dtype, got {', '.join(dtypes)}; "
            "convert one of them with .astype(...)"
        )
    if (dtype := np.dtype(dtypes[0])) not in FLOAT_DTYPES:
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
) -> tuple[tuple[Any, ...], bool, np.dtype[Any], tuple[int, ...]]:
    """The full checks of the inputs: the arrays, whether on a device, their dtype and shape."""
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
        raise TypeError(f"{name} {_MIXED}")
    dtype = float_dtype(name, *checked)
    shape = tuple(checked[0].shape)  # a tuple, as every answer gives it: a device array's may not
    labels = tuple(arrays)
    for label, a in zip(labels[1:], checked[1:], strict=True):
        if tuple(a.shape) != shape:
            which = f" ({label} against {labels[0]})" if len(labels) > 2 else ""
            raise ValueError(
                f"{name}: the arrays must have the same shape, got {shape} and "
                f"{tuple(a.shape)}{which}"
            )
    return tuple(checked), all(on_device), dtype, shape


def _addresses(a: Any) -> NDArray[Any]:
    """``a`` as NumPy sees memory: a host array itself, a device array as addresses only.

    A device array becomes a NumPy array over the addresses its ``__cuda_array_interface__``
    states, which nothing ever reads: NumPy's overlap test compares addresses and strides only,
    so one exact test serves every library. CuPy's own is not enough: ``cupy.may_share_memory``
    says False for two arrays over one allocation reached through different memory objects
    (``cupy.from_dlpack``, ``memptr=``), and ``cupy.shares_memory`` launches a kernel and waits.
    """
    if isinstance(a, np.ndarray):  # NumPy's, and NumPy subclasses standing in for device arrays
        return a
    interface = a.__cuda_array_interface__
    keys = ("data", "shape", "typestr", "strides")  # not the stream: nothing here touches data
    view = {key: interface.get(key) for key in keys} | {"version": 3}
    return np.asarray(SimpleNamespace(__array_interface__=view))


def _layout(a: NDArray[Any]) -> tuple[Any, ...]:
    """Where ``a``'s elements lie: equal for two views of the same elements in the same order."""
    return a.shape, a.strides, a.ctypes.data


def _output(
    name: str,
    out: Any,
    reads: Mapping[str, Any],
    shape: tuple[int, ...],
    dtype: np.dtype[Any],
    on_device: bool,
    accept: Callable[[object], bool],
    alias_ok: bool,
) -> tuple[Any, ...]:
    """Refuse an ``out`` that cannot take the result, or that overlaps what the kernel reads.

    Returns the inputs, ``out`` itself in place of each that ``out`` is exactly (``alias_ok``).
    """
    kind = "device array of the inputs' type" if on_device else "NumPy array"
    if isinstance(out, np.ma.MaskedArray):
        raise TypeError(f"{name}: out is a masked array; pass a plain {kind}")
    if on_device != accept(out) or not (on_device or isinstance(out, np.ndarray)):
        if on_device or is_device_array(out):
            raise TypeError(f"{name} {_MIXED}")
        raise TypeError(f"{name}: out must be a {kind}, got {type(out).__name__}")
    # Subclasses may reshape otherwise: a numpy.matrix stays 2-D, and a flat loop writes its rows.
    if not on_device and type(out) not in (np.ndarray, np.memmap):
        raise TypeError(
            f"{name}: out is a {type(out).__name__}, a NumPy subclass the kernels cannot write "
            "through safely; pass out.view(numpy.ndarray), which shares its memory"
        )
    if tuple(out.shape) != shape or out.dtype != dtype:
        raise ValueError(
            f"{name}: out must have shape {shape} and dtype {dtype}, "
            f"got shape {tuple(out.shape)} and dtype {out.dtype}"
        )
    flags = getattr(out, "flags", None)
    # Kernels write through a flat view; a strided `out` would silently receive nothing.
    if not getattr(flags, "c_contiguous", True):
        raise ValueError(f"{name}: out must be C-contiguous; pass a new array or out.copy()")
    if not getattr(flags, "writeable", True):
        raise ValueError(f"{name}: out is read-only; pass a writable array")
    written, inputs = _addresses(out), []
    for label, a in reads.items():
        read = _addresses(a)
        try:  # NumPy's exact answer, bounded: an overlap too hard to solve quickly counts as one
            aliased = bool(np.shares_memory(written, read, max_work=_OVERLAP_WORK))
        except np.exceptions.TooHardError:
            aliased = True
        if aliased and not (alias_ok and _layout(written) == _layout(read)):
            allowed = f"; out may be {label} itself, exactly" if alias_ok else ""
            raise ValueError(
                f"{name}: out overlaps {label} in memory, so the kernel would read elements it "
                f"has already overwritten{allowed}. Pass a separate array"
            )
        inputs.append(out if aliased else a)
    return tuple(inputs)


def _host_out_fits(out: Any, reads: Sequence[Any], alias_ok: bool) -> bool:
    """True when a plain ndarray ``out`` of the right shape and dtype plainly passes ``_output``.

    That is: contiguous, writable, and apart from every input (or one exactly, when ``alias_ok``).
    False means "ask fully".
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
        the one that is wrong. At least one.
    out
        The caller's ``out=``, or None.
    out_shape
        The result's shape, when it is not the inputs' (``()`` for a reduction).
    out_may_be_input
        Allow ``out`` to be an input exactly (same elements, same layout), as an elementwise
        kernel can. Any other overlap with an input is always refused.
    accept, takes
        The device arrays the route launches on (CuPy's by default), and how an error says so.
    """
    values: tuple[Any, ...] = tuple(arrays.values())
    if not values:
        raise TypeError(f"{name}: no arrays to check; pass at least one")
    # The cheap path: arrays of one exact type, NumPy's own or (for a route that takes them)
    # CuPy's, of one float dtype compared by identity (NumPy's built-in dtypes are single
    # objects; an equal dtype that is another object just takes the full checks), of one shape.
    first = values[0]
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
        values, on_device, dtype, shape = _inputs(name, arrays, accept, takes)
    else:
        on_device = kind is not _NDARRAY
    if out_shape is not None:
        shape = out_shape
    # A device `out` always takes the full checks: NumPy's overlap test over its interface.
    if out is not None and not (
        type(out) is kind is _NDARRAY
        and out.shape == shape
        and out.dtype is dtype
        and _host_out_fits(out, values, out_may_be_input)
    ):
        reads = dict(zip(arrays, values, strict=True))
        values = _output(name, out, reads, shape, dtype, on_device, accept, out_may_be_input)
    # The device is asked last, of device arrays only: the one question the dispatcher skips.
    device = None
    if on_device and kind is not None:  # CuPy arrays, every one
        device = device_of(values[0])
        for a in (*values, out) if out is not None else values:
            if device_of(a) != device:
                device_of_arrays(name, (*values, out))  # raises, naming every device
    elif on_device:  # the route's device arrays: CuPy's among them have a device, others none
        device = device_of_arrays(name, (*values, out))
    # tuple.__new__ directly: a NamedTuple's own __new__ is a Python function, a third of a call.
    return _new_checked(Checked, (values, out, dtype, shape, on_device, device))


_new_checked = tuple.__new__
