# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Numba's CUDA target for your own ``@cuda.jit`` kernels, and the helpers that launch them.

Import this module only where GPU code runs (inside a dispatcher's GPU branch, in a module that
only GPU branches import, in simulator tests): importing it imports the CUDA target, the one the
package's own kernels compile with (numba-cuda-mlir where it is installed, numba-cuda otherwise
and under the simulator).

.. code-block:: python

    import numpy as np

    from .kernels import THREADS_PER_BLOCK, blocks_for
    from .kernels.numba_cuda import cuda, cupy_stream, launch

    @cuda.jit
    def _scale(a, x, out):
        i = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x  # 64-bit
        if i < out.size:
            out[i] = a * x[i]

    launch(_scale, blocks_for(out.size), THREADS_PER_BLOCK, cupy_stream(), a, x, out)

Write the index as above, not ``cuda.grid(1)``: numba-cuda-mlir computes that in 32 bits, so
past ``2**31 - 1`` elements it wraps and the rest of the array is skipped without an error.
:func:`ptx_problems` finds that, and float64 arithmetic in float32 kernels, in the PTX the
compiler emits, with no GPU: ``assert ptx_problems(_scale, "void(float32, float32[::1],
float32[::1])") == []`` in a test (:func:`ptx_unavailable` says where it cannot run).
"""

from __future__ import annotations

from ._numba_cuda import (
    BACKEND,
    FALLBACK_REASON,
    cuda,
    cupy_stream,
    launch,
    ptx_of,
    ptx_problems,
    ptx_unavailable,
    sm_count,
)
from ._numba_cuda import _simulator_enabled as simulator_enabled

__all__ = [
    "BACKEND",
    "FALLBACK_REASON",
    "cuda",
    "cupy_stream",
    "launch",
    "ptx_of",
    "ptx_problems",
    "ptx_unavailable",
    "simulator_enabled",
    "sm_count",
]
