from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from my_gpu_project import _pricing_cuda
from my_gpu_project.kernels.numba_cuda import cuda, ptx_unavailable, simulator_enabled

if simulator_enabled():
    pytest.importorskip("numba_cuda", reason="the CUDA simulator is numba-cuda's: nox -s tests_sim")
elif ptx_unavailable() or not cuda.is_available():
    pytest.skip("needs a GPU, or nox -s tests_sim", allow_module_level=True)

pytestmark = pytest.mark.cudasim


@pytest.mark.parametrize("call", [True, False])
@pytest.mark.parametrize("n", [0, 1, 17])
def test_payoff_kernel_matches_numpy(n: int, call: bool) -> None:
    rng = np.random.default_rng(n)
    spot, strike = rng.random(n), rng.random(n)
    out = cuda.device_array(n)
    _pricing_cuda.launch_payoff(cuda.to_device(spot), cuda.to_device(strike), call, out, threads=16)
    expected: Any = np.maximum(spot - strike if call else strike - spot, 0)
    np.testing.assert_array_equal(out.copy_to_host(), expected)
