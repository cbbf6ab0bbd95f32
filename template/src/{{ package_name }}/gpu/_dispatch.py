# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""One public function, two implementations: the GPU one for CuPy arrays, the CPU one otherwise."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from ._arrays import device_of, is_gpu_array, is_out_of_memory, on_device, to_cpu

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["gpu_dispatch"]

P = ParamSpec("P")
R = TypeVar("R")


def _device_of_arguments(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """The device of the CuPy arrays among the arguments, or None when there are none.

    Raises
    ------
    ValueError
        When the arrays live on different devices: a kernel runs on one device, and copying
        behind the caller's back would hide a slow transfer.
    """
    found = sorted({device_of(a) for a in (*args, *kwargs.values()) if is_gpu_array(a)})
    if len(found) > 1:
        listed = ", ".join(str(device) for device in found[:-1]) + f" and {found[-1]}"
        raise ValueError(
            f"{name} got arrays on CUDA devices {listed}; move them to one device first "
            f"with gpu.to_device(a, device={found[0]})"
        )
    return found[0] if found else None


def _host(value: Any) -> Any:
    return to_cpu(value) if is_gpu_array(value) else value


def gpu_dispatch(
    *, cpu: Callable[P, R], oom_fallback: bool = True
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function's GPU implementation with its CPU twin.

    The decorated function runs the GPU implementation when any argument is a CuPy array, and
    ``cpu`` otherwise: it follows the caller's arrays, not a global switch. The GPU
    implementation runs with the arrays' device current (and the caller's current device is
    restored afterwards), so what it allocates lands beside its inputs; arrays on different
    devices are refused with a ValueError naming them.

    When the GPU implementation runs out of device memory and ``oom_fallback`` is true, the
    arguments are copied to the host, ``cpu`` runs instead, a warning is logged, and the result
    is a NumPy array. Every other error propagates unchanged. A function that takes ``out=``
    must pass ``oom_fallback=False``: the fallback would write into a host copy of ``out``,
    never into ``out`` itself.

    Parameters
    ----------
    cpu
        The CPU implementation, with the same signature as the decorated function.
    oom_fallback
        Whether running out of device memory falls back to ``cpu`` on host copies.

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
            device = _device_of_arguments(gpu.__qualname__, args, kwargs)
            if device is None:
                return cpu(*args, **kwargs)
            try:
                with on_device(device):
                    return gpu(*args, **kwargs)
            except Exception as exc:
                if not (oom_fallback and is_out_of_memory(exc)):
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
