# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Share arrays with JAX through DLPack, on the host or on the GPU.

JAX is imported inside each function, so this module costs nothing until it is used. JAX arrays
are immutable: arrays handed out must not be written to. :func:`to_jax` passes a C- or
Fortran-ordered array as it is (JAX may copy it still, to align it), and copies what DLPack
cannot carry: a strided view (``x[::2]``), a read-only or broadcast array, a list.

64-bit values: JAX computes in 32 bits unless ``jax_enable_x64`` is on, and then converts a
float64 (or int64, complex128) array to 32 bits on the way in, without a word. :func:`to_jax`
refuses such an array instead of losing half of its digits; turn 64-bit mode on at the start of
the program (``jax.config.update("jax_enable_x64", True)``), or convert the array yourself.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

import numpy as np

from ._arrays import is_gpu_array, loaded_cupy

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
    """A JAX array from a CuPy or NumPy array (or a list), on the matching device, through DLPack.

    Raises
    ------
    TypeError
        When JAX would narrow the array's dtype (float64 to float32, int64 to int32, ...)
        because ``jax_enable_x64`` is off.
    """
    import jax
    import jax.numpy as jnp

    xp = loaded_cupy() if is_gpu_array(a) else np
    a = xp.asarray(a)
    dtype = np.dtype(a.dtype)
    kept = np.dtype(jax.dtypes.canonicalize_dtype(dtype))
    if kept != dtype:
        raise TypeError(
            f"JAX would convert this {dtype} array to {kept}, because 64-bit mode is off. "
            'Call jax.config.update("jax_enable_x64", True) at the start of the program, '
            f"or convert the array with .astype(numpy.{kept}) to accept the loss"
        )
    # JAX takes only compact layouts through DLPack, and NumPy exports no read-only array.
    compact = a.flags.c_contiguous or a.flags.f_contiguous
    if not compact or not getattr(a.flags, "writeable", True):  # CuPy's flags have no writeable
        a = xp.array(a, order="C")
    return jnp.from_dlpack(a)


def from_jax(x: jax.Array) -> Any:
    """A CuPy array for a JAX array on a GPU, a NumPy array for one on the CPU.

    Where CuPy is not installed (a project rendered without it computes on NumPy), a JAX array on
    a GPU becomes a NumPy copy instead.
    """
    # jax.Array's __dlpack__ signature is older than the protocol NumPy's stubs expect.
    shared: Any = x
    on_gpu = any(device.platform == "gpu" for device in x.devices())
    if on_gpu and importlib.util.find_spec("cupy") is not None:
        import cupy

        return cupy.from_dlpack(shared)
    return np.asarray(shared) if on_gpu else np.from_dlpack(shared)
