# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Share arrays with PyTorch through DLPack, without copies, on the host or on the GPU.

PyTorch is imported inside each function, so this module costs nothing until it is used.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

import numpy as np

from . import is_gpu_array

if TYPE_CHECKING:
    import torch

__all__ = ["from_torch", "to_torch", "torch_cuda_available"]


def torch_cuda_available() -> bool:
    """``torch.cuda.is_available()``, guarded: False when PyTorch or its CUDA runtime is broken.

    A CPU-only or mismatched PyTorch build can raise instead of answering; this never does.
    """
    try:
        import torch
    except (ImportError, OSError, RuntimeError):
        return False
    try:
        return bool(torch.cuda.is_available())
    except (AssertionError, RuntimeError):  # torch raises both for a broken CUDA build
        return False


def to_torch(a: Any) -> torch.Tensor:
    """A tensor sharing ``a``'s memory: a CUDA tensor for a CuPy array, a CPU tensor otherwise."""
    import torch

    if is_gpu_array(a):
        return torch.from_dlpack(a)
    return torch.from_numpy(np.asarray(a))


def from_torch(t: torch.Tensor) -> Any:
    """An array sharing ``t``'s memory: CuPy for a CUDA tensor, NumPy for a CPU tensor.

    Where CuPy is not installed (a project rendered without it computes on NumPy), a CUDA tensor
    becomes a NumPy copy instead. Tensors that require gradients are detached first; the result
    does not track gradients.
    """
    t = t.detach()
    if t.device.type == "cuda" and importlib.util.find_spec("cupy") is not None:
        import cupy

        return cupy.from_dlpack(t)
    return np.from_dlpack(t.cpu())  # a CPU tensor's cpu() is the tensor itself, not a copy
