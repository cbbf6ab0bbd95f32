# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""One public function, two implementations: the GPU one for CuPy arrays, the CPU one otherwise."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, TypeVar, cast

from ._arrays import device_of_arrays, is_gpu_array, is_out_of_memory, on_device, to_cpu

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import CodeType


P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class Dispatched(Protocol[P, R_co]):
    """What :func:`gpu_dispatch` makes: the function itself, and :attr:`on`."""

    # A function's attributes, as functools.wraps copied them: the dispatcher is still one.
    __name__: str
    __qualname__: str
    __module__: str
    __code__: CodeType
    __wrapped__: Callable[..., Any]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...

    @property
    def on(self) -> Mapping[int | None, Callable[P, R_co]]:
        """The implementation for where the arrays live, by CUDA device, None for the host.

        ``on[None]`` is the CPU one itself, ``on[0]`` the GPU one run with device 0 current;
        nothing is checked again (see :func:`gpu_dispatch`).
        """
        ...


class _Implementations(dict[int | None, "Callable[..., Any]"]):
    """``on``: the CPU implementation under None; a device's GPU caller, made on first use."""

    def __init__(self, cpu: Callable[..., Any], run_on: Callable[..., Any]) -> None:
        super().__init__({None: cpu})
        self._run_on = run_on

    def __missing__(self, device: int | None) -> Callable[..., Any]:
        if not isinstance(device, int):
            raise KeyError(device)
        # Threads that miss together each store an equal caller: whichever stays serves.
        run = self[device] = functools.partial(self._run_on, device)
        return run


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
    ``f.on[checked.device](...)`` (the package's kernels pass ``checks.arrays``'s ``device``),
    which runs the same implementation without looking at the arguments again.

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

        def run_on(device: int, /, *args: P.args, **kwargs: P.kwargs) -> R:
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

        on = _Implementations(cpu, run_on)

        @functools.wraps(gpu)
        def dispatch(*args: P.args, **kwargs: P.kwargs) -> R:
            # None without CuPy arrays; a ValueError naming the devices when they differ.
            device = device_of_arrays(name, (*args, *kwargs.values()) if kwargs else args)
            implementation: Callable[P, R] = on[device]
            return implementation(*args, **kwargs)

        dispatched = cast("Dispatched[P, R]", dispatch)
        dispatched.on = on  # type: ignore[misc]
        return dispatched

    return decorate
