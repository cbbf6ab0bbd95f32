# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Pick a multiprocessing start method that survives CUDA and Numba's CPU threads."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ._project import CUDA_MODULES

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

# The package's compiled extension (where the project has one) links the CUDA runtime in
# statically: its calls start CUDA in this process without importing any of CUDA_MODULES.
EXTENSION_MODULE = f"{__name__.rsplit('.', 2)[0]}.kernels._cuda_cpp"


def cuda_may_be_initialised() -> bool:
    """True once a library that can initialise CUDA (``CUDA_MODULES``, the extension) is loaded."""
    return _cuda_hazard() is not None


def _cuda_hazard() -> str | None:
    """Why CUDA may be initialised in this process (a CUDA library or the extension), or None.

    The extension's ``cuda_started()`` is believed; an extension without it counts once loaded.
    """
    if cuda := next((name for name in CUDA_MODULES if name in sys.modules), None):
        return f"{cuda} is imported and may have initialised CUDA"
    extension = sys.modules.get(EXTENSION_MODULE)
    if extension is None:
        return None
    started = getattr(extension, "cuda_started", None)
    if started is None:
        return f"{EXTENSION_MODULE} is loaded and may have started its CUDA runtime"
    return f"{EXTENSION_MODULE} has started its CUDA runtime" if started() else None


def fork_hazard() -> str | None:
    """Why a child forked from this process could fail, or None while ``fork`` is safe.

    A forked child inherits a CUDA context it cannot use, and none of the threads of Numba's
    parallel loops: GNU OpenMP (Numba's layer on Linux) terminates a child that runs one.
    """
    if cuda := _cuda_hazard():
        return cuda
    # Read where Numba keeps it, never imported: a missing flag (a newer Numba) counts as started.
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is not None and getattr(parallel, "_is_initialized", True):
        layer = getattr(parallel, "_threading_layer", None) or "parallel"
        return f"Numba's {layer} threading layer has started its threads"
    return None


def mp_context() -> BaseContext:
    """A multiprocessing context safe for this process: ``spawn`` once :func:`fork_hazard` says why.

    Until then the platform default is kept (``fork`` is fast on Linux); ``spawn`` starts each
    child from a fresh interpreter, which CUDA and OpenMP require.
    """
    import multiprocessing  # here, not at import: it costs milliseconds most programs never use

    return multiprocessing.get_context("spawn" if fork_hazard() else None)
