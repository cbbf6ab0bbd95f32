"""European option pricing: Black-Scholes call prices and payoffs, on the GPU or the CPU.

``call_price`` runs a CuPy ``ElementwiseKernel`` on CuPy arrays, ``payoff`` a Numba CUDA kernel;
on NumPy arrays both run a parallel Numba loop.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from .gpu import gpu_dispatch
from .kernels import checks, cpu_jit

if TYPE_CHECKING:
    from .kernels.checks import Array, ArrayT

__all__ = ["call_price", "payoff"]

CALL_BODY = """
T sd = vol * sqrt(years);
if (sd <= 0) {
    out = spot > strike ? spot - strike : 0;
} else {
    T d1 = (log(spot / strike) + (rate + vol * vol / 2) * years) / sd;
    T d2 = d1 - sd;
    out = spot * normcdf(d1) - strike * exp(-rate * years) * normcdf(d2);
}
"""


def call_price(
    spot: Array[ArrayT], strike: Array[ArrayT], *, rate: float, vol: float, years: float
) -> ArrayT:
    """Black-Scholes prices of European calls, one per (spot, strike) pair."""
    checked = checks.arrays("call_price", {"spot": spot, "strike": strike})
    params = [
        checks.scalar("call_price", k, v, checked.dtype)
        for k, v in (("rate", rate), ("vol", vol), ("years", years))
    ]
    if params[1] < 0 or params[2] < 0:
        raise ValueError("call_price: vol and years must be >= 0")
    result: ArrayT = _call_price(*checked.arrays, *params)
    return result


def payoff(spot: Array[ArrayT], strike: Array[ArrayT], *, call: bool = True) -> ArrayT:
    """The payoff at expiry: ``max(spot - strike, 0)`` for calls, the reverse for puts."""
    checked = checks.arrays("payoff", {"spot": spot, "strike": strike})
    result: ArrayT = _payoff(*checked.arrays, bool(call))
    return result


@cpu_jit
def _call_loop(spot: Any, strike: Any, rate: Any, vol: Any, years: Any, out: Any) -> None:
    sd = vol * math.sqrt(years)
    for i in numba.prange(spot.size):
        if sd <= 0:
            out[i] = max(spot[i] - strike[i], 0)
        else:
            d1 = (math.log(spot[i] / strike[i]) + (rate + vol * vol / 2) * years) / sd
            d2 = d1 - sd
            cdf1 = 0.5 * (1 + math.erf(d1 / math.sqrt(2)))
            cdf2 = 0.5 * (1 + math.erf(d2 / math.sqrt(2)))
            out[i] = spot[i] * cdf1 - strike[i] * math.exp(-rate * years) * cdf2


def _call_price_cpu(spot: Any, strike: Any, rate: Any, vol: Any, years: Any) -> Any:
    out = np.empty(spot.shape, dtype=spot.dtype)
    _call_loop(spot.ravel(), strike.ravel(), rate, vol, years, out.reshape(-1))
    return out


@functools.cache
def _call_kernel() -> Any:  # pragma: gpu
    import cupy

    params = "T spot, T strike, T rate, T vol, T years"
    return cupy.ElementwiseKernel(params, "T out", CALL_BODY, "call_price")


@gpu_dispatch(cpu=_call_price_cpu)
def _call_price(spot: Any, strike: Any, rate: Any, vol: Any, years: Any) -> Any:
    return _call_kernel()(spot, strike, rate, vol, years)


@cpu_jit
def _payoff_loop(spot: Any, strike: Any, is_call: bool, out: Any) -> None:
    for i in numba.prange(spot.size):
        gain = spot[i] - strike[i] if is_call else strike[i] - spot[i]
        out[i] = 0  # `gain if gain > 0 else 0` would be float64 for float32
        if gain > 0:
            out[i] = gain


def _payoff_cpu(spot: Any, strike: Any, is_call: bool) -> Any:
    out = np.empty(spot.shape, dtype=spot.dtype)
    _payoff_loop(spot.ravel(), strike.ravel(), is_call, out.reshape(-1))
    return out


@gpu_dispatch(cpu=_payoff_cpu)
def _payoff(spot: Any, strike: Any, is_call: bool) -> Any:
    import cupy

    from . import _pricing_cuda

    out = cupy.empty(spot.shape, dtype=spot.dtype)
    stream = _pricing_cuda.cupy_stream()
    _pricing_cuda.launch_payoff(
        spot.ravel(), strike.ravel(), is_call, out.reshape(-1), stream=stream
    )
    return out
