# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Numba's CUDA target for your own ``@cuda.jit`` kernels, and the helpers that launch them.

The kernels are written once, in what both of Numba's CUDA targets compile. This module compiles
them with numba-cuda-mlir (``numba_cuda_mlir.cuda``, NVIDIA's maintained target) where it is
installed, and with ``numba.cuda`` (numba-cuda, or the deprecated one built into Numba) otherwise
and always under the CUDA simulator, which numba-cuda-mlir lacks. It imports that target when it
is imported, so import it only where GPU code runs: inside a dispatcher's GPU branch, in a module
that only GPU branches import, in simulator tests. Launchers take device arrays: Numba device
arrays, CuPy arrays (anything with ``__cuda_array_interface__``), or NumPy arrays under the CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1``), where every CUDA thread is a Python thread: slow, but
exact enough to test indexing, shared memory, barriers and atomics without a GPU.

docs/extending.md writes a kernel of your own on :func:`launch` and :func:`cupy_stream`, with
its tests. Index with ``np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x``, not
``cuda.grid(1)``, which numba-cuda-mlir computes in 32 bits (the deep-checks answer's
tests/numba_ptx.py finds such an index in the PTX, with no GPU; :func:`ptx_unavailable` says
where no real compiler is at hand).

The package's own ``axpy`` kernel is here (:func:`launch_axpy`); the worked examples' kernels
live in modules of their own, on this module's target, stream and launcher.
"""

from __future__ import annotations

import importlib
import math
import os
import threading
from typing import Any

import numpy as np

from . import THREADS_PER_BLOCK, blocks_for, disk_cache

__all__ = [
    "BACKEND",
    "FALLBACK_REASON",
    "cuda",
    "cupy_stream",
    "launch",
    "launch_axpy",
    "launch_unavailable",
    "ptx_unavailable",
    "simulator_enabled",
]


def simulator_enabled() -> bool:
    """Whether Numba will run kernels in its CUDA simulator, read as Numba reads it.

    Numba takes ``int(NUMBA_ENABLE_CUDASIM)`` and treats a value that is not an integer as off
    (with a warning), so ``00`` is off and ``2`` is on; any other reading would name a target
    Numba is not using.
    """
    try:
        return int(os.environ.get("NUMBA_ENABLE_CUDASIM", 0)) != 0
    except ValueError:
        return False


def _cuda_target() -> tuple[Any, str, str | None]:
    """The CUDA module kernels compile with, its name, and why not numba-cuda-mlir (or None)."""
    # Numba reads the simulator switch from the environment when it is first imported.
    simulated = simulator_enabled()
    if simulated:
        reason = "the CUDA simulator is on (NUMBA_ENABLE_CUDASIM), and numba-cuda-mlir has none"
    else:
        try:
            return importlib.import_module("numba_cuda_mlir.cuda"), "numba-cuda-mlir", None
        # Not only ImportError (not installed: numba-cuda chosen by hand, or tests_sim): a broken
        # install raises OSError or RuntimeError, and a warning made an error raises itself
        # (NumPy 2.5's, at numba-cuda-mlir 0.6's import). Each leaves numba.cuda or an ImportError.
        except Exception as exc:
            reason = f"numba-cuda-mlir cannot be imported: {exc!r}"
    try:
        target = importlib.import_module("numba.cuda")
    # A broken numba-cuda raises more than ImportError too: numba-cuda 0.30 on NumPy 2.5 raises
    # AttributeError (np.row_stack, removed). The package's error names both causes either way.
    except Exception as exc:
        raise ImportError(
            f"{reason}; numba-cuda, the other CUDA target, cannot be imported either ({exc!r})."
            f" Reinstall the GPU extra, or ask `python -m {__name__.partition('.')[0]}.doctor`"
        ) from exc
    # numba-cuda replaces numba.cuda and names its maker "NVIDIA"; Numba's own says "Built-in".
    name = "numba-cuda" if getattr(target, "implementation", "") == "NVIDIA" else "numba built-in"
    return target, f"{name} simulator" if simulated else name, reason


# The CUDA intrinsics (cuda.grid, cuda.shared, ...) exist for the kernel compiler, not as typed
# Python, so mypy is told the module is untyped.
cuda: Any
BACKEND: str
FALLBACK_REASON: str | None
"""Why the kernels compile with something other than numba-cuda-mlir; None when they do not."""
cuda, BACKEND, FALLBACK_REASON = _cuda_target()

_DEFAULT_STREAM = 0  # the legacy default stream, the one CuPy also uses by default
# The configuration module the target's launches read the low-occupancy switch from (each target
# has its own: numba-cuda-mlir's descriptor.py, numba-cuda's and Numba's own dispatcher.py).
_CONFIG: Any = getattr(cuda, "config", None)
_LOW_OCCUPANCY_BLOCKS = 128  # both targets advise against a grid of fewer blocks (see launch)
# One lock for the two process-wide states below: the streams kept and the advice's switch.
_LOCK = threading.Lock()


def cupy_stream() -> Any:
    """CuPy's current stream as a Numba stream, so kernels queue in order with CuPy's work."""
    import cupy

    stream = cupy.cuda.get_current_stream()
    # CuPy's legacy default stream (``Stream.null``) says device -1: it is every device's, so the
    # device it runs on now is the current one.
    device = stream.device_id
    return _numba_stream(stream.ptr, device if device >= 0 else cupy.cuda.runtime.getDevice())


# numba-cuda-mlir caches launch configurations under the stream *object* (descriptor.py,
# configure): a new object per call misses at every launch (2.8 times the cost). So each CuPy
# stream (handle, device) gets one Numba stream, the 64 most recently used kept (under the 128
# configurations per kernel), each with its maker: a stand-in from a test never serves a launch.
_STREAMS_KEPT = 64
_STREAMS: dict[tuple[int, int | None], tuple[Any, Any]] = {}  # oldest use first


def _numba_stream(pointer: int, device: int | None) -> Any:
    """The Numba stream for CuPy's stream handle ``pointer`` (0: the default stream)."""
    make = cuda.external_stream if pointer else cuda.default_stream
    key = (pointer, device)
    with _LOCK:
        kept = _STREAMS.pop(key, None)  # put back last: the most recently used
        if kept is None or kept[0] is not make:
            if device is not None:  # a device met anew: checked here, not at every launch
                _refuse_another_generation(device)
            kept = (make, make(pointer) if pointer else make())
            if len(_STREAMS) >= _STREAMS_KEPT:
                del _STREAMS[next(iter(_STREAMS))]  # the least recently used
        _STREAMS[key] = kept
        return kept[1]


def _refuse_another_generation(device: int) -> None:
    """Raise where numba-cuda-mlir's kernels cannot run: on GPU ``device``, of another generation.

    It builds for one compute capability per process (``tools._cached_cc``), whose code runs on
    GPUs of that major at that minor or newer; any other GPU would fail at launch, unexplained.
    """
    mlir = BACKEND == "numba-cuda-mlir"
    built = importlib.import_module("numba_cuda_mlir.tools")._cached_cc if mlir else None
    if built is None:  # numba-cuda compiles per GPU; numba-cuda-mlir has compiled nothing yet
        return
    import cupy

    major, minor = divmod(int(cupy.cuda.Device(device).compute_capability), 10)
    if major != built[0] or minor < built[1]:
        raise RuntimeError(
            f"GPU {device} has compute capability {major}.{minor}, but numba-cuda-mlir compiles"
            f" for one GPU generation per process and this one compiled for {built[0]}.{built[1]}."
            " Run one process per generation (CUDA_VISIBLE_DEVICES selects its GPUs)"
        )


def _axpy(a: Any, x: Any, y: Any, out: Any) -> None:
    # 64-bit: numba-cuda-mlir 0.6 computes `cuda.grid(1)` in 32 bits (lowering/cuda.py).
    i = np.int64(cuda.blockIdx.x) * cuda.blockDim.x + cuda.threadIdx.x
    if i < out.size:  # the last block overhangs the array
        out[i] = a * x[i] + y[i]


# Compiled once per signature and GPU, then loaded from disk where Numba can write a cache folder.
_axpy_kernel: Any = cuda.jit(_axpy, cache=disk_cache())


def launch(
    kernel: Any, grid: int | tuple[int, ...], block: int | tuple[int, ...], stream: Any, *args: Any
) -> None:
    """``kernel[grid, block, stream](*args)``: no low-occupancy advice, no host sync per argument.

    Both targets warn (NumbaPerformanceWarning) when a kernel is configured with fewer than 128
    blocks (numba-cuda: dispatcher.py, ``_LaunchConfiguration``; numba-cuda-mlir: descriptor.py,
    ``_configure_cached``). Here the grid follows the data, so a small array is a small grid by
    design, and under ``filterwarnings = error`` the advice would fail every small call. Not
    ``warnings.catch_warnings``: it swaps the process-wide filter list, which is not thread-safe
    (threaded Dask workers). The targets' own switch, read at each configuration, silences
    exactly this advice (numba-cuda's test base class sets it so). It is process-wide too, so it
    is off only while a small grid is configured, under a lock, then put back: a small launch of
    another thread in that instant misses the advice too, nothing else does.

    Both targets make the host wait, per argument, for the stream a CuPy array names in its
    ``__cuda_array_interface__`` (numba-cuda-mlir: descriptor.py,
    ``_sync_cuda_array_interface_stream``; numba-cuda: api.py, ``from_cuda_array_interface``).
    CuPy names its *current* stream there, not the one that wrote the array. A launch on that
    stream runs after everything queued on it, so the wait adds nothing: such arrays go in with
    their interface's ``stream`` set to None, which the interface defines as nothing to wait for
    (see :class:`_OnItsStream`); work on other streams is the caller's to order, as for any CuPy
    operation. A launch on another stream keeps the wait. With
    :func:`cupy_stream` as ``stream``, nothing here waits for the GPU.
    """
    blocks = grid if isinstance(grid, int) else math.prod(grid)  # a 2-D grid: any sequence
    if blocks >= _LOW_OCCUPANCY_BLOCKS or _CONFIG is None:
        configured = kernel[grid, block, stream]
    else:
        with _LOCK:
            before = _CONFIG.CUDA_LOW_OCCUPANCY_WARNINGS
            _CONFIG.CUDA_LOW_OCCUPANCY_WARNINGS = 0
            try:
                configured = kernel[grid, block, stream]
            finally:
                _CONFIG.CUDA_LOW_OCCUPANCY_WARNINGS = before
    configured(*(_unsynced(arg, stream) for arg in args))


class _OnItsStream:
    """A CuPy array as a launch on its own stream takes it, with nothing to wait for.

    Its ``__cuda_array_interface__`` with ``stream`` None, which the interface (version 3)
    defines as no synchronization needed. numba-cuda-mlir's launcher reads the interface of such
    an object itself; numba-cuda makes its device array from it. ``cuda.as_cuda_array(a,
    sync=False)``, the targets' own way, builds a Numba device array per argument first: on an
    H100 it made ``launch_axpy`` on 8 elements take 182 µs of host time, against 27 µs with this
    (numba-cuda-mlir 0.6, one run side by side).
    """

    __slots__ = ("__cuda_array_interface__", "array")

    def __init__(self, array: Any, interface: dict[str, Any]) -> None:
        self.array = array  # kept alive while the target holds this, as a device array would
        self.__cuda_array_interface__ = {**interface, "stream": None}


def _unsynced(arg: Any, stream: Any) -> Any:
    """``arg`` without the stream wait, when its interface names ``stream``."""
    interface = getattr(arg, "__cuda_array_interface__", None)
    if interface is None or getattr(arg, "__cuda_ndarray__", False):
        return arg  # host values and Numba's own device arrays: no wait to skip
    # Not int(stream): a Numba stream's __int__ returns an enum for the default stream, which
    # Python deprecates (a DeprecationWarning); its handle converts cleanly.
    handle = stream if isinstance(stream, int) else int(stream.handle)
    if interface.get("stream") != (handle or 1):  # 1: the interface's legacy default stream
        return arg  # the launch is not on the stream named (or none is): the target's rule
    return _OnItsStream(arg, interface)


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


def ptx_unavailable() -> str | None:
    """Why kernels cannot be compiled to PTX here, or None when they can (no GPU needed)."""
    if simulator_enabled():
        return "the CUDA simulator (NUMBA_ENABLE_CUDASIM=1) compiles nothing to PTX"
    if BACKEND == "numba built-in":
        return "neither numba-cuda-mlir (the GPU extra) nor numba-cuda (tests_sim) is installed"
    return None


def launch_unavailable() -> str | None:
    """Why no kernel can launch here (no PTX, or no usable GPU), or None when one can."""
    if reason := ptx_unavailable():
        return reason
    try:
        usable = cuda.is_available()
    except Exception as exc:  # numba-cuda-mlir on a driver older than its CUDA raises
        return f"CUDA is not usable here: {exc}"
    return None if usable else "needs a usable CUDA GPU, or NUMBA_ENABLE_CUDASIM=1 and numba-cuda"
