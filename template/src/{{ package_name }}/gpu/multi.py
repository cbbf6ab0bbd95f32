# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Several GPUs in one process: list them, select one for a block, free their pooled memory.

The ``multi_gpu`` answer's module; ``gpu.to_device(a, device=i)`` is in every project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _arrays
from ._arrays import _checked_device, cuda_device_count, loaded_cupy, on_device
from ._detect import backend

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
    # Looked up on the module at each call: the project's fake CuPy replaces it there.
    used = _arrays._devices_with_a_context(count)
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
