"""One public function, two implementations: the GPU one for CuPy arrays, the CPU one otherwise."""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from ._arrays import is_gpu_array, to_cpu

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["gpu_dispatch"]

P = ParamSpec("P")
R = TypeVar("R")


def _has_gpu_array(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    return any(is_gpu_array(a) for a in (*args, *kwargs.values()))


def _is_out_of_memory(exc: BaseException) -> bool:
    """True for CuPy's out-of-memory error, looked up without importing CuPy."""
    cupy = sys.modules.get("cupy")
    oom = getattr(getattr(getattr(cupy, "cuda", None), "memory", None), "OutOfMemoryError", None)
    return isinstance(oom, type) and isinstance(exc, oom)


def _host(value: Any) -> Any:
    return to_cpu(value) if is_gpu_array(value) else value


def gpu_dispatch(
    *, cpu: Callable[P, R], oom_fallback: bool = True
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function's GPU implementation with its CPU twin.

    The decorated function runs the GPU implementation when any argument is a CuPy array, and
    ``cpu`` otherwise: it follows the caller's arrays, not a global switch. When the GPU
    implementation runs out of device memory and ``oom_fallback`` is true, the arguments are
    copied to the host, ``cpu`` runs instead, a warning is logged, and the result is a NumPy
    array. Every other error propagates unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> def _norm_cpu(x):
    ...     return float(np.sqrt(np.dot(x, x)))
    >>> @gpu_dispatch(cpu=_norm_cpu)
    ... def norm(x):
    ...     import cupy
    ...     return float(cupy.sqrt(cupy.dot(x, x)))
    >>> norm(np.array([3.0, 4.0]))
    5.0
    """

    def decorate(gpu: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(gpu)
        def dispatch(*args: P.args, **kwargs: P.kwargs) -> R:
            if not _has_gpu_array(args, kwargs):
                return cpu(*args, **kwargs)
            try:
                return gpu(*args, **kwargs)
            except Exception as exc:
                if not (oom_fallback and _is_out_of_memory(exc)):
                    raise
                import logging  # here, not at import: only a fallback needs it

                logging.getLogger(__name__).warning(
                    "%s: GPU out of memory (%s); running the CPU implementation on host copies "
                    "of the arguments, so the result is a NumPy array",
                    gpu.__qualname__,
                    exc,
                )
            host_args = [_host(a) for a in args]
            host_kwargs = {k: _host(v) for k, v in kwargs.items()}
            return cpu(*host_args, **host_kwargs)

        return dispatch

    return decorate
