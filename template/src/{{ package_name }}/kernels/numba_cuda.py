# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Numba's CUDA target for your own ``@cuda.jit`` kernels, and the helpers that launch them.

Import this module only where GPU code runs (inside a dispatcher's GPU branch, in a module that
only GPU branches import, in simulator tests): importing it imports the CUDA target, the one the
package's own kernels compile with (numba-cuda-mlir where it is installed, numba-cuda otherwise
and under the simulator).

.. code-block:: python

    from .kernels import THREADS_PER_BLOCK, blocks_for
    from .kernels.numba_cuda import cuda, cupy_stream, launch

    @cuda.jit
    def _scale(a, x, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = a * x[i]

    launch(_scale, blocks_for(out.size), THREADS_PER_BLOCK, cupy_stream(), a, x, out)
"""

from __future__ import annotations

from ._numba_cuda import BACKEND, cuda, cupy_stream, launch, sm_count
from ._numba_cuda import _simulator_enabled as simulator_enabled

__all__ = ["BACKEND", "cuda", "cupy_stream", "launch", "simulator_enabled", "sm_count"]
