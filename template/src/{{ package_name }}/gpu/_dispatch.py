# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""One public function, two implementations: the GPU one for CuPy arrays, the CPU one otherwise."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar, cast

from ._arrays import device_of_arrays, is_gpu_array, is_out_of_memory, on_device, to_cpu

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import CodeType

__all__ = ["Dispatched", "gpu_dispatch"]

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class Dispatched(Protocol[P, R_co]):
    """What :func:`gpu_dispatch` makes: the function itself, and :meth:`call_on`.

    Calling it looks for CuPy arrays among the arguments to choose the implementation. A caller
    that has already checked its arguments, and so knows where they live, says so with
    ``call_on`` and spares the second look (the package's kernels pass ``checks.arrays``'s
    ``device``).
    """

    # A function's attributes, as functools.wraps copied them: the dispatcher is still one.
    __name__: str
    __qualname__: str
    __module__: str
    __code__: CodeType
    __wrapped__: Callable[..., Any]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...

    def call_on(self, device: int | None, /, *args: P.args, **kwargs: P.kwargs) -> R_co:
        """Run on CUDA device ``device`` (the GPU implementation), or the CPU one for None.

        Nothing is checked: ``device`` must be where the CuPy arguments live, as the checks
        resolved it. Out of memory falls back as a call does.
        """
        ...


def _device_of_arguments(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> int | None:
    """The device of the CuPy arrays among the arguments, or None when there are none.

    Raises
    ------
    ValueError
        When the arrays live on different devices (see ``device_of_arrays``).
    """
    return device_of_arrays(name, (*args, *kwargs.values()) if kwargs else args)


def _host(value: Any) -> Any:
    return to_cpu(value) if is_gpu_array(value) else value


def gpu_dispatch(
    *, cpu: Callable[P, R], oom_fallback: bool = True
) -> Callable[[Callable[P, R]], Dispatched[P, R]]:
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

    A public function that has checked its arguments already knows where they live: it calls
    ``f.call_on(checked.device, ...)`` (see ``Dispatched.call_on``), which runs the same
    implementation without looking at the arguments again.

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

    def decorate(gpu: Callable[P, R]) -> Dispatched[P, R]:
        name = gpu.__qualname__
        cpu_positional: Callable[..., R] = cpu  # for a call without keywords, typed as such

        def call_on(device: int | None, /, *args: P.args, **kwargs: P.kwargs) -> R:
            if device is None:
                # Without an empty dict to unpack: a third of this function's cost on a small call.
                return cpu(*args, **kwargs) if kwargs else cpu_positional(*args)
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
                    name,
                    exc,
                )
            host_args = [_host(a) for a in args]
            host_kwargs = {k: _host(v) for k, v in kwargs.items()}
            return cpu(*host_args, **host_kwargs)

        @functools.wraps(gpu)
        def dispatch(*args: P.args, **kwargs: P.kwargs) -> R:
            return call_on(_device_of_arguments(name, args, kwargs), *args, **kwargs)

        dispatched = cast("Dispatched[P, R]", dispatch)
        dispatched.call_on = call_on  # type: ignore[method-assign]
        return dispatched

    return decorate
