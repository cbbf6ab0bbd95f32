# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""cuda.core: the explicit route, with a device, a stream and a compiled program in plain sight.

cuda.core (NVIDIA's cuda-python) is the layer under the array libraries: pick a ``Device``,
create a ``Stream``, compile CUDA C with ``Program`` (NVRTC, no CUDA toolkit needed), allocate
buffers and ``launch``. Use it for streams, contexts, multi-GPU placement and diagnostics; for
array math CuPy is shorter. This example runs ``laplacian.cu`` on host arrays: it copies in,
launches and copies out on its own stream, so it shows the API, not a fast path (two transfers
cross the PCIe bus for one pass of arithmetic). Device arrays are refused: for those, use the
CuPy or Numba routes, which launch on them in place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._cuda_c import compile_once, kernel_name, laplacian_cpu, read_source
from ._grids import BLOCK_2D, checked_grid, grid_2d, host_only

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ._cuda_c import FloatT

__all__ = ["describe_device", "laplacian_cuda_core", "laplacian_host"]

laplacian_host = laplacian_cpu
"""The NumPy equivalent of :func:`laplacian_cuda_core`."""


@compile_once
def _program(arch: str) -> Any:
    """``laplacian.cu`` compiled to a cubin for ``sm_<arch>``, once per architecture."""
    from cuda.core import Program, ProgramOptions

    options = ProgramOptions(std="c++17", arch=f"sm_{arch}")
    return Program(read_source(), code_type="c++", options=options).compile("cubin")


def describe_device(device: int | None = None) -> dict[str, str]:
    """Name, compute capability and memory of a device, the current one by default."""
    from cuda.core import Device

    dev = Device(device)
    properties = dev.properties
    return {
        "name": str(dev.name),
        "compute_capability": ".".join(map(str, dev.compute_capability)),
        "multiprocessors": str(properties.multiprocessor_count),
        "pci_bus_id": str(dev.pci_bus_id),
    }


def _driver_call(result: Any) -> Any:
    """The value of a ``cuda.bindings.driver`` call, which returns ``(error, *values)``."""
    from cuda.bindings import driver

    error, *values = result
    if error != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {error!r}")
    return values[0] if values else None


def laplacian_cuda_core(u: NDArray[FloatT], *, device: int | None = None) -> NDArray[FloatT]:
    """The 5-point Laplacian (zero edges) of a host array, computed on ``device``.

    The calling thread's current CUDA context is the same afterwards as before, even when the
    launch fails: ``device`` is made current only for the call.

    Parameters
    ----------
    u
        A 2-D float32 or float64 host array (device arrays are refused with a TypeError).
    device
        The CUDA device to run on; by default the calling thread's current one (the device CuPy
        or PyTorch made current), device 0 when none is: cuda.core's ``Device()``.

    Returns
    -------
    numpy.ndarray
        A new host array.
    """
    checked = checked_grid(
        "laplacian_cuda_core", u, None, accept=host_only, takes="host arrays only"
    )
    dtype = checked.dtype
    u = np.ascontiguousarray(checked.arrays[0])
    grid = grid_2d(u.shape, BLOCK_2D)  # y capped at MAX_GRID_Y: the kernel loops over rows
    if not (grid[0] and grid[1]):
        return np.empty(u.shape, dtype=dtype)
    from cuda.bindings import driver
    from cuda.core import Device

    dev = Device(device)  # initialises the driver, so the current context can be asked
    previous = _driver_call(driver.cuCtxGetCurrent())
    try:
        dev.set_current()
        result: NDArray[FloatT] = _run(dev, u, grid)
        return result
    finally:
        # set_current() replaced the caller's context (another device's, or none): put it back.
        _driver_call(driver.cuCtxSetCurrent(previous))


def _run(dev: Any, u: Any, grid: tuple[int, int]) -> Any:
    """Copy ``u`` in, launch, copy the result out, on a stream of its own on the current ``dev``."""
    from cuda.core import LaunchConfig, LegacyPinnedMemoryResource, launch

    kernel = _program(dev.arch).get_kernel(kernel_name(u.dtype))
    stream = dev.create_stream()
    # Pinned (page-locked) host memory: the copies run as DMA, asynchronously on the stream.
    staging = LegacyPinnedMemoryResource().allocate(u.nbytes, stream=stream)
    on_device = [dev.allocate(u.nbytes, stream=stream) for _ in range(2)]
    try:
        host = np.from_dlpack(staging).view(u.dtype).reshape(u.shape)
        host[...] = u
        on_device[0].copy_from(staging, stream=stream)
        rows, cols = u.shape
        config = LaunchConfig(grid=grid, block=BLOCK_2D)
        launch(stream, config, kernel, *on_device, np.int64(rows), np.int64(cols))
        on_device[1].copy_to(staging, stream=stream)
        stream.sync()
        return host.copy()
    finally:
        for buffer in (staging, *on_device):
            buffer.close(stream)
        stream.close()
