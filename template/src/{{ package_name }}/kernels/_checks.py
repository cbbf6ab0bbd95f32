# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Argument checks shared by every kernel route: each public function validates here once.

A public kernel function calls one of :func:`elementwise`, :func:`reduction` or :func:`grid`, and
hands what it returns to its CPU or GPU twin, which trust it and check nothing again. Every route
therefore fails the same way, with advice:

- arrays: ``None`` and masked arrays are refused (a kernel would ignore the mask); host array-likes
  become NumPy arrays; device arrays stay as they are; host and device arrays are not mixed;
- dtypes: float32 or float64, one for all arrays; shapes: equal, never broadcast;
- ``out``: an array of the inputs' kind (on the host a plain ndarray or memmap, no other
  subclass), shape and dtype, C-contiguous, writable, and not overlapping an input in memory.
  The one overlap allowed is exact aliasing in an elementwise kernel (``axpy(a, x, y, out=y)``):
  each element is read before it is written, by the same thread. A partial overlap
  (``out=buf[1:]`` with ``x=buf[:-1]``) would read elements another thread has already
  overwritten, so it is refused, on the host and on the device alike.

Overlap is decided by address ranges, the same way for every array type: NumPy arrays, CuPy
arrays, PyCUDA ``GPUArray`` and anything with ``__cuda_array_interface__`` (Numba device arrays).

Types: a public kernel function takes :class:`Array` arguments and returns an array of the
caller's own type (:data:`ArrayT`), so ``axpy(2.0, x, y)`` is a NumPy array to mypy when ``x``
and ``y`` are, and a string, a list, a number or ``None`` where an array goes is a type error
naming the argument. The twins annotate the checked arrays ``Any``: one signature serves NumPy
arrays and CuPy's, which have no type hints.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from ..gpu import is_gpu_array

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

__all__ = [
    "FLOAT_DTYPES",
    "Array",
    "ArrayT",
    "FloatT",
    "address_range",
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
    """What mypy requires of an array argument: a shape, a dtype, and a copy of its own kind.

    NumPy arrays have all three. The device arrays of every route (CuPy, Numba, PyCUDA) come
    from libraries without type hints: mypy sees them as ``Any``, which fits. A string, a list,
    a number or ``None`` is a type error that names the argument.

    The copy is there for its type: a NumPy array's copy is an array of the same type, so a
    parameter ``x: Array[ArrayT]`` binds ``ArrayT`` to the caller's array type, and a function
    that returns ``ArrayT`` returns, to mypy, what it was given.
    """

    @property
    def shape(self) -> tuple[int, ...]: ...

    @property
    def dtype(self) -> np.dtype[Any]: ...

    def copy(self) -> _KindT_co: ...


ArrayT = TypeVar("ArrayT", bound="Array[Any]")
"""The caller's array type: ``def f(x: Array[ArrayT]) -> ArrayT`` returns a NumPy array for one."""

FloatT = TypeVar("FloatT", bound="np.floating[Any]")
"""A NumPy float type (float32, float64), for host-only code: ``NDArray[FloatT]`` in and out."""

FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# --- what an array is and where it lives ----------------------------------------------------------


def is_device_array(a: object) -> bool:
    """True for an array in GPU memory of any library: CuPy, Numba, PyCUDA, ... Never imports one.

    CuPy arrays are recognised by ``gpu.is_gpu_array``; the others by the
    ``__cuda_array_interface__`` protocol (looked up on the type, so no property runs) or by
    PyCUDA's ``gpudata`` attribute.
    """
    return (
        is_gpu_array(a)
        or hasattr(type(a), "__cuda_array_interface__")
        or (hasattr(a, "gpudata") and hasattr(a, "shape"))
    )


def host_only(a: object) -> bool:
    """The ``accept`` of a route that launches on no device array: every one is refused."""
    return False


def _pointer_and_strides(a: Any) -> tuple[int, tuple[int, ...]]:
    """The address of ``a``'s first element and its byte strides, for any supported array type."""
    if isinstance(a, np.ndarray):  # NumPy, and NumPy subclasses standing in for device arrays
        return int(a.__array_interface__["data"][0]), tuple(a.strides)
    pointer = getattr(getattr(a, "data", None), "ptr", None)  # CuPy: a MemoryPointer
    if pointer is None and getattr(a, "gpudata", None) is not None:  # PyCUDA: a DeviceAllocation
        pointer = int(a.gpudata)
    if pointer is not None:
        return int(pointer), tuple(a.strides)
    interface = getattr(a, "__cuda_array_interface__", None)
    if interface is None:
        raise TypeError(f"cannot locate the memory of a {type(a).__name__}")
    strides = interface.get("strides")
    if strides is None:  # the protocol's way of saying C-contiguous
        strides = _c_strides(tuple(interface["shape"]), np.dtype(interface["typestr"]).itemsize)
    return int(interface["data"][0]), tuple(strides)


def _c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def address_range(a: Array[Any]) -> tuple[int, int] | None:
    """The bytes ``[start, stop)`` that ``a``'s elements span; None for an array of no elements.

    Like NumPy's ``byte_bounds``, for host and device arrays alike. A strided view spans the gaps
    between its elements too, so the range is conservative: two interleaved views overlap by it.
    """
    shape = tuple(a.shape)
    if 0 in shape:
        return None
    pointer, strides = _pointer_and_strides(a)
    low = sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s > 0)
    return pointer + low, pointer + high + np.dtype(a.dtype).itemsize


def overlaps(a: Array[Any], b: Array[Any]) -> bool:
    """True when the address ranges of ``a`` and ``b`` intersect (arrays of one address space)."""
    first, second = address_range(a), address_range(b)
    if first is None or second is None:
        return False
    return first[0] < second[1] and second[0] < first[1]


def _same_elements(a: Array[Any], b: Array[Any]) -> bool:
    """True when ``a`` and ``b`` are views of the same elements in the same layout."""
    return (
        tuple(a.shape) == tuple(b.shape)
        and np.dtype(a.dtype) == np.dtype(b.dtype)
        and _pointer_and_strides(a) == _pointer_and_strides(b)
    )


# --- single checks --------------------------------------------------------------------------------


def float_dtype(name: str, *arrays: Array[Any]) -> np.dtype[Any]:
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


def scalar(name: str, label: str, value: object, dtype: np.dtype[Any]) -> Any:
    """``value`` as a scalar of ``dtype``; TypeError for None, complex numbers, strings, arrays.

    ``numpy.float64(None)`` is NaN, so without this check ``axpy(None, x, y)`` would quietly
    return NaNs.
    """
    if not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name}: {label} must be a real number, got {type(value).__name__} {value!r}; "
            f"pass a float (for a 0-d array: float({label}))"
        )
    return dtype.type(value)


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
            raise TypeError(
                f"{name} takes {takes}, got a {kind} for {label}; copy it to the host first "
                f"(gpu.to_cpu({label}) for CuPy), or use a kernel route that launches on it"
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
) -> None:
    """Refuse an ``out`` that cannot take the result, or that overlaps what the kernel reads."""
    if out is None:
        return
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
    for label, a in reads.items():
        if not overlaps(target, a) or (alias_ok and _same_elements(target, a)):
            continue
        allowed = f"; out may be {label} itself, exactly" if alias_ok else ""
        raise ValueError(
            f"{name}: out overlaps {label} in memory, so the kernel would read elements it has "
            f"already overwritten{allowed}. Pass a separate array"
        )


# --- what a public function calls -----------------------------------------------------------------


def elementwise(
    name: str,
    x: Array[ArrayT],
    y: Array[ArrayT],
    out: Array[ArrayT] | None,
    *,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> tuple[ArrayT, ArrayT, np.dtype[Any]]:
    """Check the operands of an elementwise kernel; return ``x`` and ``y`` as arrays and the dtype.

    ``out`` may be ``x`` or ``y`` exactly (same elements, same layout), nothing else that
    overlaps them.
    """
    # New names: mypy keeps a parameter's declared type, Array[ArrayT], whatever it is assigned.
    (x_array, y_array), on_device = _inputs(name, {"x": x, "y": y}, accept, takes)
    dtype = float_dtype(name, x_array, y_array)
    if tuple(x_array.shape) != tuple(y_array.shape):  # no broadcasting: it hides bugs
        shapes = f"{tuple(x_array.shape)} and {tuple(y_array.shape)}"
        raise ValueError(f"{name}: the arrays must have the same shape, got {shapes}")
    _output(
        name,
        out,
        shape=tuple(x_array.shape),
        dtype=dtype,
        reads={"x": x_array, "y": y_array},
        on_device=on_device,
        accept=accept,
        alias_ok=True,
    )
    return x_array, y_array, dtype


def reduction(
    name: str,
    x: Array[ArrayT],
    out: Array[ArrayT] | None,
    *,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> tuple[ArrayT, np.dtype[Any]]:
    """Check the operand of a reduction into a 0-d ``out``; return ``x`` as an array and its dtype.

    ``out`` must not overlap ``x`` at all: the result is zeroed, then accumulated, while ``x`` is
    still being read.
    """
    (x_array,), on_device = _inputs(name, {"x": x}, accept, takes)
    dtype = float_dtype(name, x_array)
    _output(
        name,
        out,
        shape=(),
        dtype=dtype,
        reads={"x": x_array},
        on_device=on_device,
        accept=accept,
        alias_ok=False,
    )
    return x_array, dtype


def grid(
    name: str,
    u: Array[ArrayT],
    out: Array[ArrayT] | None,
    *,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> tuple[ArrayT, np.dtype[Any]]:
    """Check a 2-D float grid and its ``out``; return ``u`` as an array and its dtype.

    ``out`` must not overlap ``u`` at all: a stencil reads the neighbours of what it writes.
    """
    (u_array,), on_device = _inputs(name, {"u": u}, accept, takes)
    dtype = float_dtype(name, u_array)
    if u_array.ndim != 2:
        raise ValueError(
            f"{name} needs a 2-D array, got {u_array.ndim}-D with shape {tuple(u_array.shape)}"
        )
    _output(
        name,
        out,
        shape=tuple(u_array.shape),
        dtype=dtype,
        reads={"u": u_array},
        on_device=on_device,
        accept=accept,
        alias_ok=False,
    )
    return u_array, dtype
