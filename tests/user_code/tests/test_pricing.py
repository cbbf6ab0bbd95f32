from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from my_gpu_project import _pricing_cuda, gpu, pricing

if TYPE_CHECKING:
    from types import ModuleType

RNG = np.random.default_rng(0)
SPOT = RNG.uniform(50, 150, 64)
STRIKE = RNG.uniform(50, 150, 64)


def normal_cdf(d: float) -> float:
    return 0.5 * (1 + math.erf(d / math.sqrt(2)))


def reference_call(spot: float, strike: float, rate: float, vol: float, years: float) -> float:
    sd = vol * math.sqrt(years)
    if sd <= 0:
        return max(spot - strike, 0.0)
    d1 = (math.log(spot / strike) + (rate + vol * vol / 2) * years) / sd
    return spot * normal_cdf(d1) - strike * math.exp(-rate * years) * normal_cdf(d1 - sd)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("vol", [0.0, 0.2])
def test_call_price_matches_the_formula(dtype: Any, vol: float) -> None:
    spot, strike = SPOT.astype(dtype), STRIKE.astype(dtype)
    result = pricing.call_price(spot, strike, rate=0.01, vol=vol, years=0.5)
    expected = [reference_call(s, k, 0.01, vol, 0.5) for s, k in zip(SPOT, STRIKE, strict=True)]
    assert result.dtype == dtype
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-3)


def test_call_price_refuses_a_negative_volatility() -> None:
    with pytest.raises(ValueError, match="vol and years must be >= 0"):
        pricing.call_price(SPOT, STRIKE, rate=0.01, vol=-0.2, years=0.5)


@pytest.mark.parametrize("call", [True, False])
def test_payoff_matches_numpy(call: bool) -> None:
    expected = np.maximum(SPOT - STRIKE if call else STRIKE - SPOT, 0)
    np.testing.assert_array_equal(pricing.payoff(SPOT, STRIKE, call=call), expected)


@pytest.mark.gpu_branch(pricing, "_call_price")
def test_call_price_runs_its_gpu_branch_on_device_arrays(
    fake_gpu: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    def kernel(*args: Any) -> Any:
        host = [a.get() if gpu.is_gpu_array(a) else a for a in args]
        return fake_gpu.asarray(pricing._call_price_cpu(*host))

    monkeypatch.setattr(pricing, "_call_kernel", lambda: kernel)
    result = pricing.call_price(
        gpu.to_device(SPOT), gpu.to_device(STRIKE), rate=0.01, vol=0.2, years=0.5
    )
    assert gpu.is_gpu_array(result)
    np.testing.assert_allclose(
        result.get(), pricing.call_price(SPOT, STRIKE, rate=0.01, vol=0.2, years=0.5)
    )


@pytest.mark.gpu_branch(pricing, "_payoff")
def test_payoff_runs_its_gpu_branch_on_device_arrays(
    fake_gpu: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    def launch(spot: Any, strike: Any, is_call: bool, out: Any, *, stream: Any) -> None:
        out[...] = fake_gpu.maximum(spot - strike if is_call else strike - spot, 0)

    monkeypatch.setattr(_pricing_cuda, "launch_payoff", launch)
    monkeypatch.setattr(_pricing_cuda, "cupy_stream", lambda: None)
    result = pricing.payoff(gpu.to_device(SPOT), gpu.to_device(STRIKE), call=False)
    assert gpu.is_gpu_array(result)
    np.testing.assert_array_equal(result.get(), np.maximum(STRIKE - SPOT, 0))


@pytest.mark.gpu
def test_pricing_on_a_gpu_matches_the_cpu() -> None:
    spot, strike = gpu.to_device(SPOT), gpu.to_device(STRIKE)
    price = pricing.call_price(spot, strike, rate=0.01, vol=0.2, years=0.5)
    expected = pricing.call_price(SPOT, STRIKE, rate=0.01, vol=0.2, years=0.5)
    np.testing.assert_allclose(gpu.to_cpu(price), expected, rtol=1e-12)
    np.testing.assert_array_equal(
        gpu.to_cpu(pricing.payoff(spot, strike)), pricing.payoff(SPOT, STRIKE)
    )
