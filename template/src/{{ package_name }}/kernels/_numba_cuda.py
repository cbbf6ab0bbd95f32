# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""CUDA kernels in Python syntax (Numba), and the helpers that size their launches.

The kernels are written once, in what both of Numba's CUDA targets compile. This module compiles
them with numba-cuda-mlir (``numba_cuda_mlir.cuda``, NVIDIA's maintained target) where it is
installed, and with numba-cuda (``numba.cuda``) otherwise and always under the CUDA simulator,
which only numba-cuda has. It imports that target when it is imported, so only GPU paths and
simulator tests import it. Launchers take device arrays: Numba device arrays, CuPy arrays
(anything with ``__cuda_array_interface__``), or NumPy arrays under the CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``), where every CUDA thread is a Python thread: slow, but exact enough
to test indexing, shared memory, barriers and atomics without a GPU.

The worked examples' kernels (where the project has them) live in modules of their own beside
this one, and use its target, its stream and its launcher.
"""

from __future__ import annotations

import importlib
import os
import warnings
from typing import Any

from ._launch import THREADS_PER_BLOCK, blocks_for

__all__ = [
    "BACKEND",
    "cupy_stream",
    "launch",
    "launch_axpy",
    "sm_count",
]


def _simulator_enabled() -> bool:
    """Whether Numba will run kernels in its CUDA simulator, read as Numba reads it.

    Numba takes ``int(NUMBA_ENABLE_CUDASIM)`` and treats a value that is not an integer as off
    (with a warning), so ``00`` is off and ``2`` is on; any other reading would name a target
    Numba is not using.
    """
    try:
        return int(os.environ.get("NUMBA_ENABLE_CUDASIM", 0)) != 0
    except ValueError:
        return False


def _cuda_target() -> tuple[Any, str]:
    """The CUDA module kernels compile with, and its name (which the doctor and tests report)."""
    # Numba reads the simulator switch from the environment when it is first imported.
    if _simulator_enabled():
        return importlib.import_module("numba.cuda"), "numba-cuda simulator"
    try:
        return importlib.import_module("numba_cuda_mlir.cuda"), "numba-cuda-mlir"
    except ImportError:  # not installed (Python 3.10, or numba-cuda chosen by hand)
        return importlib.import_module("numba.cuda"), "numba-cuda"


# The CUDA intrinsics (cuda.grid, cuda.shared, ...) exist for the kernel compiler, not as typed
# Python, so mypy is told the module is untyped.
cuda: Any
BACKEND: str
cuda, BACKEND = _cuda_target()

_DEFAULT_STREAM = 0  # the legacy default stream, the one CuPy also uses by default

# Both targets warn (NumbaPerformanceWarning, each its own class) whenever a grid has fewer than
# 128 blocks. Here the grid follows the data, so a small array is a small grid by design, and
# under `filterwarnings = error` the advice would fail every small call: exactly that message is
# silenced at the launch, nothing else.
_LOW_OCCUPANCY = r"Grid size \d+ will likely result in GPU under-utilization"


def _performance_warning() -> type[Warning]:
    """The target's NumbaPerformanceWarning class (each target defines its own)."""
    for module in (
        "numba_cuda_mlir.numba_cuda.core.errors" if BACKEND == "numba-cuda-mlir" else "",
        "numba.cuda.core.errors",  # numba-cuda
        "numba.core.errors",  # the CUDA target built into older numba releases
    ):
        try:
            found: type[Warning] = importlib.import_module(module).NumbaPerformanceWarning
        except (ImportError, ValueError, AttributeError):  # ValueError: the empty name
            continue
        return found
    return Warning


_PERFORMANCE_WARNING = _performance_warning()


def sm_count() -> int:
    """Multiprocessors on the current device (the simulator reports its own small number)."""
    return int(getattr(cuda.get_current_device(), "MULTIPROCESSOR_COUNT", 1))


def cupy_stream() -> Any:
    """CuPy's current stream as a Numba stream, so kernels queue in order with CuPy's work."""
    import cupy

    pointer = cupy.cuda.get_current_stream().ptr
    return cuda.external_stream(pointer) if pointer else cuda.default_stream()


# --- kernels -------------------------------------------------------------------------------------


def _axpy(a: Any, x: Any, y: Any, out: Any) -> None:
    i = cuda.grid(1)
    if i < out.size:  # the last block overhangs the array
        out[i] = a * x[i] + y[i]


_axpy_kernel: Any = cuda.jit(_axpy)


# --- launchers -----------------------------------------------------------------------------------


def launch(kernel: Any, grid: Any, block: Any, stream: Any, *args: Any) -> None:
    """``kernel[grid, block, stream](*args)``, without Numba's low-occupancy warning."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_LOW_OCCUPANCY, category=_PERFORMANCE_WARNING)
        kernel[grid, block, stream](*args)


def launch_axpy(
    a: Any,
    x: Any,
    y: Any,
    out: Any,
    *,
    threads: int = THREADS_PER_BLOCK,
    stream: Any = _DEFAULT_STREAM,
) -> None:
    """``out = a * x + y`` on 1-D device arrays, one thread per element."""
    blocks = blocks_for(out.size, threads)
    if blocks:  # a grid of zero blocks is a CUDA launch error
        launch(_axpy_kernel, blocks, threads, stream, a, x, y, out)
