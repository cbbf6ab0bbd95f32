# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The argument checks every kernel route shares, for your kernels as for the package's own.

A public kernel function calls one of :func:`elementwise`, :func:`reduction` or :func:`grid`
once, then hands what it returns to its CPU or GPU twin, which check nothing again:

.. code-block:: python

    x, y, dtype = checks.elementwise("my_kernel", x, y, out)
    a = checks.scalar("my_kernel", "a", a, dtype)

The rules (dtypes, shapes, host and device arrays, ``out=`` and memory overlaps) are those of
the package's private ``_checks`` module, which this module re-exports unchanged.

Type a kernel function as the package's own are, so that mypy refuses a wrong call and gives
the caller's array type back: :class:`Array` for each array, ``ArrayT`` for the result,
``float`` for a scalar, and ``NDArray[FloatT]`` (``numpy.typing``) on a host-only route:

.. code-block:: python

    def my_kernel(
        a: float, x: Array[ArrayT], y: Array[ArrayT], *, out: Array[ArrayT] | None = None
    ) -> ArrayT: ...
"""

from __future__ import annotations

from ._checks import (
    FLOAT_DTYPES,
    Array,
    ArrayT,
    FloatT,
    address_range,
    elementwise,
    float_dtype,
    grid,
    host_only,
    is_device_array,
    overlaps,
    reduction,
    scalar,
)

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
