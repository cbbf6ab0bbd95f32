# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The argument checks every kernel route shares, for your kernels as for the package's own.

A public kernel function calls :func:`arrays` (or one of its short forms :func:`elementwise`,
:func:`reduction`, :func:`grid`) once, then hands what it returns to its CPU or GPU twin, which
check nothing again, and tells the dispatcher where the arrays live, so that it does not look
again either:

.. code-block:: python

    checked = checks.arrays("my_kernel", {"x": x, "y": y}, out=out, out_may_be_input=True)
    a = checks.scalar("my_kernel", "a", a, checked.dtype)
    return _my_kernel.call_on(checked.device, a, *checked.arrays, out)

Any number of named arrays, with the shapes you state; an error names the argument that is
wrong. A matrix product, whose ``out`` takes its shape from both inputs:

.. code-block:: python

    checked = checks.arrays(
        "matmul",
        {"a": a, "b": b},
        shapes={"a": ("m", "k"), "b": ("k", "n")},
        out=out,
        out_shape=("m", "n"),
    )
    result = np.empty(checked.shape, checked.dtype) if out is None else out

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
    GRID,
    Array,
    ArrayT,
    Checked,
    FloatT,
    address_range,
    arrays,
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
    "GRID",
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
