"""The CUDA kernels of ``pricing``: imported only by GPU code and simulator tests."""

from __future__ import annotations

from typing import Any

import numpy as np

from .kernels import THREADS_PER_BLOCK, blocks_for
from .kernels.numba_cuda import cuda, cupy_stream, launch

__all__ = ["cupy_stream", "launch_payoff", "payoff_kernel"]


def payoff_kernel(spot: Any, strike: Any, is_call: bool, out: Any) -> None:
    i = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if i < out.size:
        gain = spot[i] - strike[i] if is_call else strike[i] - spot[i]
        out[i] = 0  # `gain if gain > 0 else 0` would be float64 for float32
        if gain > 0:
            out[i] = gain


_payoff: Any = cuda.jit(payoff_kernel)


def launch_payoff(
    spot: Any,
    strike: Any,
    is_call: bool,
    out: Any,
    *,
    threads: int = THREADS_PER_BLOCK,
    stream: Any = 0,
) -> None:
    """``out = max(±(spot - strike), 0)`` on 1-D device arrays, one thread per element."""
    blocks = blocks_for(out.size, threads)
    if blocks:
        launch(_payoff, blocks, threads, stream, spot, strike, is_call, out)
