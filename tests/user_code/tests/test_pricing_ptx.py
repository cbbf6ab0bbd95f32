from __future__ import annotations

import pytest

from my_gpu_project import _pricing_cuda
from my_gpu_project.kernels.numba_cuda import ptx_unavailable

from numba_ptx import ptx_problems

if reason := ptx_unavailable():
    pytest.skip(reason, allow_module_level=True)


@pytest.mark.parametrize("t", ["float32", "float64"])
def test_payoff_kernel_compiles_to_ptx(t: str) -> None:
    signature = f"void({t}[::1], {t}[::1], boolean, {t}[::1])"
    assert ptx_problems(_pricing_cuda.payoff_kernel, signature) == []
