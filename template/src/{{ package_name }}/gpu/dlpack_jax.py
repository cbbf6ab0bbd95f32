"""Share arrays with JAX through DLPack, on the host or on the GPU.

JAX is imported inside each function, so this module costs nothing until it is used. JAX arrays
are immutable: JAX may copy on the way in, and arrays handed out must not be written to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import jax

__all__ = ["from_jax", "jax_gpu_available", "to_jax"]


def jax_gpu_available() -> bool:
    """True when JAX has a GPU backend; False (never an exception) when JAX or its plugin fails."""
    try:
        import jax
    except (ImportError, OSError, RuntimeError):
        return False
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:  # "Unknown backend: 'gpu' requested" without a working CUDA plugin
        return False


def to_jax(a: Any) -> jax.Array:
    """A JAX array from a CuPy or NumPy array, on the matching device, through DLPack."""
    import jax.numpy as jnp

    return jnp.from_dlpack(a)


def from_jax(x: jax.Array) -> Any:
    """A CuPy array for a JAX array on a GPU, a NumPy array for one on the CPU."""
    if any(device.platform == "gpu" for device in x.devices()):
        import cupy

        return cupy.from_dlpack(x)
    # jax.Array's __dlpack__ signature is older than the protocol NumPy's stubs expect.
    shared: Any = x
    return np.from_dlpack(shared)
