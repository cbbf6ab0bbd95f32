# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Compile your CuPy kernels' CUDA source with NVRTC, without a GPU or a driver.

CuPy compiles a kernel on its first call, on a GPU: a typo in an ``ElementwiseKernel`` body is
otherwise found there and nowhere else. :func:`nvrtc_errors` writes the source CuPy would
compile for a call with arguments like the ones given (NumPy arrays stand in for CuPy arrays of
their dtype) and compiles it with NVRTC, the compiler CuPy uses, which needs no driver:

.. code-block:: python

    @pytest.mark.parametrize("dtype", ["float32", "float64"])
    def test_my_kernel_compiles(dtype: str) -> None:
        x = numpy.zeros(1, dtype)
        assert nvrtc_errors(my_module._my_kernel(), x, x) == ""

It takes ``cupy.ElementwiseKernel``, ``cupy.ReductionKernel``, ``cupy.RawKernel`` and
``cupy.RawModule`` (a raw kernel's source is compiled as written, its ``name_expressions``
instantiated). The first two are written out by CuPy's own code generator, which is private to
CuPy: :func:`nvrtc_unavailable` says so when the installed CuPy no longer has it.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

__all__ = ["ARCH", "kernel_source", "nvrtc_errors", "nvrtc_unavailable"]

# The oldest architecture CUDA 13 compiles for; PTX for it runs on every newer GPU.
ARCH = "compute_75"
# CuPy's _ArgKind (cupy/_core/_kernel.pxd): what each kernel argument is.
_NDARRAY, _INDEXER, _SCALAR = 1, 2, 3
# What CuPy puts before every generated kernel.
_CUPY_HEADER = "#include <cupy/carray.cuh>\n"


def nvrtc_unavailable() -> str | None:
    """Why CuPy kernels cannot be compiled here, or None when they can."""
    try:
        import cupy
    except (ImportError, OSError, RuntimeError) as exc:  # broken wheels raise all three
        return f"CuPy cannot be imported ({exc!r}); the cuda extra brings it"
    try:
        from cupy._core import _kernel, _reduction, core
        from cupy.cuda import compiler, nvrtc
    except ImportError as exc:
        return _generator_moved(cupy, repr(exc))
    needed = {
        _kernel: ("_ArgInfo", "_TypeMap", "_decide_params_type", "_get_elementwise_kernel_code"),
        _reduction: ("_ReductionKernel_get_cached_function_code",),
        core: ("assemble_cupy_compiler_options",),
        compiler: ("_NVRTCProgram", "CompileException"),
    }
    missing = [f"{m.__name__}.{n}" for m, ns in needed.items() for n in ns if not hasattr(m, n)]
    if missing:
        return _generator_moved(cupy, missing[0])
    try:
        nvrtc.getVersion()
    except Exception as exc:  # whatever loading libnvrtc raises is the reason
        return f"NVRTC cannot be loaded ({exc}); the cuda extra's toolkit wheels bring it"
    return None


def _generator_moved(cupy: Any, what: str) -> str:
    version = getattr(cupy, "__version__", "(unknown version)")
    return (
        f"CuPy {version} lacks the code generator this check uses ({what}); update "
        "cuda-template (copier update), or pin the CuPy version it was written for"
    )


def kernel_source(kernel: Any, *args: Any) -> str:
    """The CUDA C++ source CuPy compiles for ``kernel`` called with arguments like ``args``.

    Parameters
    ----------
    kernel
        A ``cupy.ElementwiseKernel``, ``cupy.ReductionKernel``, ``cupy.RawKernel`` or
        ``cupy.RawModule``.
    *args
        The input arguments of an elementwise or reduction kernel: a NumPy array for each array
        (its dtype counts, and its number of dimensions for a ``raw`` parameter; not its values),
        a number or NumPy scalar for each scalar, which takes its parameter's type as in CuPy.
        A raw kernel takes none: its source is compiled as written.

    Returns
    -------
    str
        The source, as CuPy hands it to NVRTC.
    """
    import cupy

    if isinstance(kernel, cupy.ElementwiseKernel):
        return _CUPY_HEADER + _elementwise_source(kernel, args)
    if isinstance(kernel, cupy.ReductionKernel):
        return _CUPY_HEADER + _reduction_source(kernel, args)
    if isinstance(kernel, (cupy.RawKernel, cupy.RawModule)):
        if args:
            raise TypeError("a raw kernel is compiled as written: pass no arguments")
        if kernel.code is None:
            raise ValueError("this RawModule was loaded from a compiled file: nothing to compile")
        return str(kernel.code)
    raise TypeError(
        "nvrtc_errors takes a cupy.ElementwiseKernel, ReductionKernel, RawKernel or RawModule, "
        f"got {type(kernel).__module__}.{type(kernel).__name__}"
    )


def nvrtc_errors(kernel: Any, *args: Any, arch: str = ARCH) -> str:
    """Compile ``kernel`` as a call with ``args`` would, with NVRTC; ``""`` or its messages.

    Parameters
    ----------
    kernel, *args
        As :func:`kernel_source` takes them.
    arch
        The virtual architecture to compile for, ``compute_NN``.

    Returns
    -------
    str
        ``""`` when the source compiles, otherwise NVRTC's log: each error with its line.
    """
    import cupy
    from cupy._core import core
    from cupy.cuda import compiler

    source = kernel_source(kernel, *args)
    # An ElementwiseKernel keeps its options among its keyword arguments; the others apart.
    elementwise = isinstance(kernel, cupy.ElementwiseKernel)
    options = tuple((kernel.kwargs.get("options") if elementwise else kernel.options) or ())
    # The options CuPy adds itself: its headers, C++17, the architecture (a device's otherwise).
    options = core.assemble_cupy_compiler_options(options)
    options += (f"-arch={arch}", "--device-as-default-execution-space")
    # A RawModule's templates are instantiated by name; other kernels have no names to add.
    names = kernel.name_expressions if isinstance(kernel, cupy.RawModule) else None
    program = compiler._NVRTCProgram(source, "kern.cu", name_expressions=names, method="ptx")
    try:
        program.compile(options)
    except compiler.CompileException as exc:
        return str(exc)
    return ""


def _dtypes_of(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Each argument's dtype as CuPy's type inference sees it: None for a scalar."""
    dtypes = []
    for a in args:
        if isinstance(a, np.ndarray):
            dtypes.append(a.dtype)
        elif isinstance(a, (numbers.Number, np.generic)):
            dtypes.append(None)  # CuPy types only its arrays; a scalar takes its parameter's type
        else:
            raise TypeError(
                f"stand in for a CuPy array with a NumPy array, for a scalar with a number; got "
                f"{type(a).__name__}"
            )
    return tuple(dtypes)


def _arg_infos(
    args: tuple[Any, ...], types: tuple[Any, ...], n_out: int, params: tuple[Any, ...]
) -> list[Any]:
    """CuPy's record of each argument: arrays stay arrays, the outputs are new arrays.

    CuPy flattens the contiguous arrays of a call to one dimension, all but ``raw`` ones, which
    keep theirs: ``u[idx]`` with a two-index ``idx`` needs a 2-D ``CArray``. A ``raw`` output
    has the shape the other inputs broadcast to.
    """
    import cupy
    from cupy._core import _kernel, _scalar

    infos = []
    shapes: list[tuple[int, ...]] = []  # of the arrays the call broadcasts: the non-raw ones
    for a, t, p in zip(args, types[: len(args)], params[: len(args)], strict=True):
        if isinstance(a, np.ndarray):
            ndim = a.ndim if p.raw else 1
            if not p.raw:
                shapes.append(a.shape)
            infos.append(_kernel._ArgInfo(_NDARRAY, cupy.ndarray, np.dtype(t), ndim, True, True))
        else:
            infos.append(_kernel._ArgInfo(_SCALAR, _scalar.CScalar, np.dtype(t), 0, True, True))
    outputs = slice(len(args), len(args) + n_out)
    for t, p in zip(types[outputs], params[outputs], strict=True):
        # Broadcast only for a raw output: other stand-ins' shapes need not agree.
        ndim = max(len(np.broadcast_shapes(*shapes)), 1) if p.raw else 1
        infos.append(_kernel._ArgInfo(_NDARRAY, cupy.ndarray, np.dtype(t), ndim, True, True))
    return infos


def _check_count(kernel: Any, args: tuple[Any, ...]) -> None:
    inputs = len(kernel.in_params)
    if len(args) != inputs:
        raise TypeError(f"{kernel.name} takes {inputs} inputs, got {len(args)} arguments")


def _elementwise_source(kernel: Any, args: tuple[Any, ...]) -> str:
    from cupy._core import _carray, _kernel

    _check_count(kernel, args)
    in_types, out_types, type_map = kernel._decide_params_type(_dtypes_of(args), ())
    infos = _arg_infos(args, in_types + out_types, len(kernel.out_params), kernel.params)
    infos.append(_kernel._ArgInfo(_INDEXER, _carray.Indexer, None, 1, True, True))
    # As CuPy calls it: the kernel's keyword arguments bring loop_prep, after_loop and options.
    code: str = _kernel._get_elementwise_kernel_code(
        tuple(infos),
        type_map,
        kernel.params,
        kernel.operation,
        kernel.name,
        kernel.preamble,
        **kernel.kwargs,
    )
    return code


def _reduction_source(kernel: Any, args: tuple[Any, ...]) -> str:
    from cupy._core import _carray, _kernel, _reduction, _scalar

    _check_count(kernel, args)
    in_types, out_types, type_map = _kernel._decide_params_type(
        kernel.in_params, kernel.out_params, _dtypes_of(args), ()
    )
    # The index type CuPy picks for fewer than 2**31 elements per output.
    index_type = ("IndexT", np.dtype(np.int32))  # codespell:ignore
    type_map = _kernel._TypeMap((*type_map._pairs, index_type))
    infos = _arg_infos(args, in_types + out_types, len(kernel.out_params), kernel._params)
    infos += [_kernel._ArgInfo(_INDEXER, _carray.Indexer, None, 1, True, True)] * 2
    infos.append(_kernel._ArgInfo(_SCALAR, _scalar.CScalar, np.dtype(np.int32), 0, True, True))
    code: str = _reduction._ReductionKernel_get_cached_function_code(
        len(kernel.in_params),
        len(kernel.out_params),
        kernel._params,
        tuple(infos),
        type_map,
        kernel.name,
        512,
        kernel.reduce_type,
        kernel.identity,
        kernel.map_expr,
        kernel.reduce_expr,
        kernel.post_map_expr,
        kernel.preamble,
        kernel.options,
    )
    return code
