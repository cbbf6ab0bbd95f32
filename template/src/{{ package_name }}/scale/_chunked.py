# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The package's array functions on chunked Dask arrays: per-chunk kernels, halos, tree sums.

Each function checks its arguments here, from the arrays' shapes and dtypes, and returns a lazy
Dask array; the chunks are computed by the workers. Three rules keep CUDA out of this process
and make the chunked result equal the single-array one:

- Chunks move to the device on the worker: the first step of every graph is
  ``gpu.to_device`` on each chunk, which gives a CuPy array on a worker with a usable GPU and a
  NumPy array elsewhere. :func:`compute` ends every graph with ``gpu.to_cpu`` on each chunk, on
  the worker, so results travel as NumPy arrays and only once.
- Every Dask call is given its ``meta`` (an empty NumPy array of the result's dtype), so Dask
  never calls a chunk function here to guess the result's type; the reduction's chunk function,
  which Dask calls anyway, returns at once when told it is computing meta.
- Each chunk runs the package's own kernel where this project has one (``_KERNELS`` says which
  module has it: Numba's first, then CuPy's), and otherwise the same arithmetic as a plain array
  expression (a project rendered without those libraries or examples has no such module).
  Stencils see their neighbours through halos (``map_overlap``), and sums add per-chunk partial
  sums in a fixed tree, so a result does not depend on which worker ran what.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from .. import gpu
from ._cluster import lost_scheduler_error, lost_task_error, require_dask

if TYPE_CHECKING:
    from collections.abc import Callable

    import dask.array as da
    from distributed import Client
    from numpy.typing import NDArray

__all__ = ["axpy", "compute", "l2_norm", "laplacian", "sum_of_squares", "to_device"]

Chunks: TypeAlias = "int | str | tuple[Any, ...]"
"""Chunk sizes as Dask takes them: ``"auto"``, one size for every axis, or one per axis."""

# Dask's annotations are partial (``map_blocks`` is typed through a decorator that hides its
# signature), so graph-building code holds Dask arrays as ``Any``; public functions declare them.
_PACKAGE = __name__.rsplit(".", 2)[0]
_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


# --- chunk functions: these run on the workers -------------------------------------------------


# Where each chunk function finds the package's kernel, best first: the Numba routes (a parallel
# CPU loop, a CUDA kernel on CuPy chunks), then CuPy's (a CUDA kernel, a NumPy twin). A module
# the project was rendered without (its library or example was not chosen) is skipped; the
# routes of PyCUDA and cuda.core take host arrays only, so CuPy chunks cannot go through them.
_KERNELS: dict[str, tuple[tuple[str, str], ...]] = {
    "axpy": (("numba_kernels", "axpy"), ("cupy_kernels", "axpy_elementwise")),
    "sum_of_squares": (
        ("numba_reductions", "sum_of_squares"),
        ("cupy_reductions", "sum_of_squares_reduction"),
    ),
    "laplacian": (("numba_stencil", "laplacian"), ("cupy_stencil", "laplacian_raw")),
}


@functools.cache
def _kernel(name: str) -> Callable[..., Any] | None:
    """The package's kernel for ``name`` (a key of ``_KERNELS``), or None where it has none.

    A module that is not there (the project was rendered without its library or example)
    passes to the next candidate; with none left, the chunk computes the plain expression. A
    module that is there but fails to import for another reason (Numba missing, say) is an
    error, not a fallback: the project chose that kernel.
    """
    for module, attribute in _KERNELS[name]:
        qualified = f"{_PACKAGE}.kernels.{module}"
        try:
            found = importlib.import_module(qualified)
        except ModuleNotFoundError as exc:
            if exc.name not in {qualified, f"{_PACKAGE}.kernels"}:
                raise
            continue
        kernel: Callable[..., Any] = getattr(found, attribute)
        return kernel
    return None


def _to_device_block(block: Any) -> Any:
    return gpu.to_device(block)


def _to_host_block(block: Any) -> Any:
    return gpu.to_cpu(block)


def _axpy_block(x: Any, y: Any, *, a: float) -> Any:
    kernel = _kernel("axpy")
    if kernel is not None:
        return kernel(a, x, y)
    return a * x + y


def _laplacian_block(u: Any) -> Any:
    kernel = _kernel("laplacian")
    if kernel is not None:
        return kernel(u)
    xp = gpu.array_namespace(u)
    out = xp.zeros_like(u)
    if min(u.shape) >= 3:  # otherwise every point is on an edge, and edges are zero
        out[1:-1, 1:-1] = (
            (u[:-2, 1:-1] + u[2:, 1:-1]) + (u[1:-1, :-2] + u[1:-1, 2:]) - 4 * u[1:-1, 1:-1]
        )
    return out


def _partial_sum_of_squares(
    block: Any, axis: tuple[int, ...], keepdims: bool, computing_meta: bool = False
) -> Any:
    """One chunk's sum of squares in float64, shaped ``(1, ...)`` for Dask's tree of sums."""
    if computing_meta:  # Dask asks here, in the client, for the partial's type: never a kernel
        return np.empty((0,) * block.ndim, dtype=np.float64)
    xp = gpu.array_namespace(block)
    kernel = _kernel("sum_of_squares")
    if kernel is not None:
        # The kernel sums in its input's dtype (on the GPU too): a float64 copy of a float32
        # chunk costs one chunk of memory and keeps every partial sum in float64.
        total = kernel(xp.astype(block, xp.float64, copy=False))
    else:
        total = xp.sum(block * block, dtype=xp.float64)
    return xp.reshape(total, (1,) * block.ndim)


def _add_partials(partials: Any, axis: tuple[int, ...], keepdims: bool) -> Any:
    """One level of the tree: the sum of a fixed group of partial sums, in float64."""
    xp = gpu.array_namespace(partials)
    return xp.sum(partials, axis=axis, keepdims=keepdims)


def _sqrt_block(total: Any) -> Any:
    return gpu.array_namespace(total).sqrt(total)


# --- graph building: this runs in the client ---------------------------------------------------


def _meta(ndim: int, dtype: np.dtype[Any]) -> NDArray[Any]:
    """An empty NumPy array standing for chunks of this dimension and dtype."""
    return np.empty((0,) * ndim, dtype=dtype)


def _chunked(x: Any, chunks: Chunks) -> Any:
    """``x`` as a Dask array with the given chunks (a Dask array keeps its own on "auto")."""
    require_dask()
    import dask.array as da

    if isinstance(x, da.Array):
        return x if chunks == "auto" else x.rechunk(chunks)
    return da.from_array(x if hasattr(x, "shape") else np.asarray(x), chunks=chunks)


def _float_dtype(name: str, *arrays: Any) -> np.dtype[Any]:
    """The one float32 or float64 dtype the arrays share; TypeError with the fix otherwise."""
    dtypes: set[np.dtype[Any]] = {np.dtype(a.dtype) for a in arrays}
    if len(dtypes) != 1 or (dtype := dtypes.pop()) not in _FLOAT_DTYPES:
        found = ", ".join(sorted(str(a.dtype) for a in arrays))
        raise TypeError(
            f"{name} takes float32 or float64 arrays of one dtype, got {found}; "
            "convert with x.astype(numpy.float64)"
        )
    return dtype


def _on_device(x: Any) -> Any:
    """``x`` with each chunk moved to its worker's device, on that worker."""
    return x.map_blocks(_to_device_block, dtype=x.dtype, meta=_meta(x.ndim, x.dtype))


def to_device(x: Any, *, chunks: Chunks = "auto") -> da.Array:
    """``x`` chunked, each chunk on its worker's device once computed (CuPy on a GPU worker).

    Every function here does this to its inputs; call it to keep an input on the devices
    across several computations: ``u = client.persist(scale.to_device(u))``.

    Parameters
    ----------
    x
        A NumPy or Dask array, of any dtype and shape.
    chunks
        Chunk sizes for a NumPy input, or new chunks for a Dask one; ``"auto"`` lets Dask choose.
    """
    result: da.Array = _on_device(_chunked(x, chunks))
    return result


def axpy(a: float, x: Any, y: Any, *, chunks: Chunks = "auto") -> da.Array:
    """``a * x + y``, chunk by chunk, with the package's ``axpy`` kernel where it has one.

    Parameters
    ----------
    a
        The scale.
    x, y
        Arrays of one shape and one dtype (float32 or float64): NumPy arrays, or Dask arrays
        (whose chunks ``y`` is aligned to ``x``'s).
    chunks
        Chunk sizes for NumPy inputs, or new chunks for Dask ones; ``"auto"`` lets Dask choose.

    Returns
    -------
    dask.array.Array
        Lazy; :func:`compute` brings it to the host.
    """
    host_x, host_y = _chunked(x, chunks), _chunked(y, chunks)
    dtype = _float_dtype("axpy", host_x, host_y)
    if host_x.shape != host_y.shape:
        raise ValueError(
            f"axpy: x and y must have one shape, got {host_x.shape} and {host_y.shape}"
        )
    host_y = host_y.rechunk(host_x.chunks)
    result: da.Array = _on_device(host_x).map_blocks(
        _axpy_block, _on_device(host_y), a=float(a), dtype=dtype, meta=_meta(host_x.ndim, dtype)
    )
    return result


def sum_of_squares(x: Any, *, chunks: Chunks = "auto", split_every: int | None = None) -> da.Array:
    """The sum of ``x * x`` over every element, as a lazy 0-d array of ``x``'s dtype.

    Each chunk's partial sum comes from the package's ``sum_of_squares`` kernel where it has
    one, in float64; Dask adds the partials in a tree of ``split_every`` at a time (its default
    when None) and the total is rounded to ``x``'s dtype once. The tree depends only on the
    chunks. On CPU workers (one thread each, the default) a chunk is summed in one fixed order
    too, so the same chunks give the same bits on any CPU cluster, and in one process. Not on
    GPU workers: the Numba kernel adds its blocks' partial sums with atomics, in whatever order
    the blocks finish, over a grid sized by the GPU, so the last bits of the total may change
    from run to run and between GPUs. Other chunks may change the last bits anywhere, as any
    change of summation order does.

    Parameters
    ----------
    x
        A float32 or float64 array of any shape (NumPy or Dask).
    chunks, split_every
        Chunk sizes as for :func:`axpy`; partial sums added per node of the tree.
    """
    require_dask()
    import dask.array as da

    host_x = _chunked(x, chunks)
    dtype = _float_dtype("sum_of_squares", host_x)
    float64 = np.dtype(np.float64)
    total: Any = da.reduction(
        _on_device(host_x),
        chunk=_partial_sum_of_squares,
        combine=_add_partials,
        aggregate=_add_partials,
        dtype=float64,
        split_every=split_every,
        concatenate=True,
        meta=_meta(0, float64),
        name="sum_of_squares",
    )
    result: da.Array = total.astype(dtype)
    return result


def l2_norm(x: Any, *, chunks: Chunks = "auto", split_every: int | None = None) -> da.Array:
    """The Euclidean norm ``sqrt(sum(x * x))`` as a lazy 0-d array; see :func:`sum_of_squares`."""
    total: Any = sum_of_squares(x, chunks=chunks, split_every=split_every)
    result: da.Array = total.map_blocks(_sqrt_block, dtype=total.dtype, meta=_meta(0, total.dtype))
    return result


def laplacian(u: Any, *, chunks: Chunks = "auto") -> da.Array:
    """The 5-point Laplacian of a 2-D grid, chunk by chunk, equal to the single-array result.

    Each chunk is extended by a halo of one row and one column from its neighbours
    (``map_overlap`` with depth 1), the package's ``laplacian`` kernel runs on the extended
    chunk, and the halo is cut off again. The grid's own edges get no halo
    (``boundary="none"``), so they stay zero, as the single-array Laplacian defines them.

    Parameters
    ----------
    u
        A 2-D float32 or float64 array (NumPy or Dask).
    chunks
        Chunk sizes as for :func:`axpy`; any size of at least one row and column works.
    """
    host_u = _chunked(u, chunks)
    dtype = _float_dtype("laplacian", host_u)
    if host_u.ndim != 2:
        raise ValueError(
            f"laplacian needs a 2-D array, got {host_u.ndim}-D with shape {host_u.shape}"
        )
    on_device = _on_device(host_u)
    meta = _meta(2, dtype)
    result: da.Array
    if 0 in host_u.shape:  # nothing to exchange, and Dask refuses a halo deeper than the array
        result = on_device.map_blocks(_laplacian_block, dtype=dtype, meta=meta)
    else:
        result = on_device.map_overlap(
            _laplacian_block, depth=1, boundary="none", dtype=dtype, meta=meta
        )
    return result


def compute(*arrays: da.Array, client: Client | None = None) -> tuple[NDArray[Any], ...]:
    """Compute lazy arrays on the cluster and return them as NumPy arrays on this host.

    Chunks are moved to the host on the workers, so this process never needs CuPy, even when
    the workers computed on GPUs. A worker that dies is replaced and its tasks are run again
    (Dask allows ``distributed.scheduler.allowed-failures`` deaths per task, 3 by default), so
    a result is either correct or an error, never partial.

    Parameters
    ----------
    *arrays
        Dask arrays, such as the functions of this module return.
    client
        The Dask client to compute with; the current one (as :func:`open_client` sets) when
        omitted.

    Raises
    ------
    ClusterError
        When a task killed every worker that ran it (usually: out of memory), or the connection
        to the scheduler closed; the message names the task and what to do.
    ValueError
        When there is no client: start one with :func:`open_client`.
    """
    require_dask()
    from distributed import KilledWorker, default_client
    from distributed.comm.core import CommClosedError

    if client is None:
        try:
            client = default_client()
        except ValueError as exc:
            raise ValueError(
                "no Dask client in this process: run the computation inside "
                "`with scale.open_client():` (or pass client=...)"
            ) from exc
    lazy: list[Any] = list(arrays)
    on_host = [
        a.map_blocks(_to_host_block, dtype=a.dtype, meta=_meta(a.ndim, a.dtype)) for a in lazy
    ]
    try:
        results = client.compute(on_host, sync=True)
    except KilledWorker as exc:
        raise lost_task_error(exc) from exc
    except CommClosedError as exc:
        raise lost_scheduler_error(exc) from exc
    return tuple(np.asarray(result) for result in results)
