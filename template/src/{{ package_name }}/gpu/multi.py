# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Several GPUs in one process: list them, select one for a block, free their pooled memory.

The ``multi_gpu`` answer's module; ``gpu.to_device(a, device=i)`` is in every project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._arrays import _checked_device, cuda_device_count, loaded_cupy, on_device
from ._detect import _driver_library, backend

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

__all__ = ["devices", "free_memory", "use_device"]


def devices() -> list[int]:
    """Ids of the usable CUDA devices, for spreading work over several GPUs; empty on the CPU."""
    return list(range(cuda_device_count()))


def use_device(device: int) -> AbstractContextManager[Any]:
    """Make ``device`` (an id from :func:`devices`) CuPy's current device inside the block.

    The previous device is current again after it. As for ``gpu.to_device(a, device=...)``, a
    ``device`` that is not an int or NumPy integer is a TypeError, one out of range a ValueError
    and any on the CPU backend a GPUUnavailableError.
    """
    return on_device(_checked_device(device))


def free_memory() -> int:
    """Return cached blocks of CuPy's memory pools to the driver; the number of bytes released.

    CuPy keeps freed device memory in a pool for reuse, so ``nvidia-smi`` shows it as used. The
    pool is kept per device, so every device this process has used is visited, not only the
    current one. Call this between phases of a program, not in a loop: refilling the pool costs
    allocations.
    """
    cupy = loaded_cupy()
    if cupy is None or not backend().is_gpu:
        return 0
    count = cuda_device_count()
    used = _devices_with_a_context(count)
    if used is None:
        visit: list[int] = list(range(count))
    else:  # and the current one, which costs no switch and is the one CuPy users expect freed
        visit = sorted(used | {int(cupy.cuda.runtime.getDevice())})
    device_pool = cupy.get_default_memory_pool()  # one object; it acts on the current device
    released = 0
    for device in visit:
        with on_device(device):
            before = int(device_pool.total_bytes())
            device_pool.free_all_blocks()
            released += before - int(device_pool.total_bytes())
    cupy.get_default_pinned_memory_pool().free_all_blocks()  # host memory: one pool
    return released


def _devices_with_a_context(count: int) -> set[int] | None:
    """Devices on which this process has a CUDA context, per the driver; None if it cannot say.

    Only those can hold pooled memory. Asking the driver matters because entering a device
    (cudaSetDevice) creates its context since CUDA 12: a few hundred MiB on every GPU this
    process never used, and an error on a GPU another process holds in exclusive mode.
    """
    import ctypes

    try:
        driver = ctypes.CDLL(_driver_library())
        get_device, get_state = driver.cuDeviceGet, driver.cuDevicePrimaryCtxGetState
    except (OSError, AttributeError):
        return None
    active: set[int] = set()
    for ordinal in range(count):
        handle, flags, is_active = ctypes.c_int(), ctypes.c_uint(), ctypes.c_int()
        if get_device(ctypes.byref(handle), ordinal) != 0:
            return None
        if get_state(handle, ctypes.byref(flags), ctypes.byref(is_active)) != 0:
            return None
        if is_active.value:
            active.add(ordinal)
    return active
