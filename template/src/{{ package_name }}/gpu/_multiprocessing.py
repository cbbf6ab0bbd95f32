# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Pick a multiprocessing start method that survives CUDA."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from ._facts import CUDA_MODULES

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

__all__ = ["cuda_may_be_initialised", "mp_context"]


def cuda_may_be_initialised() -> bool:
    """True once a library that can initialise CUDA has been imported in this process.

    Importing any of the modules in ``CUDA_MODULES`` (``gpu._facts``) can create a CUDA context; a
    forked child then inherits a context it cannot use and fails with "initialization error" or
    hangs.
    """
    return any(name in sys.modules for name in CUDA_MODULES)


def mp_context() -> BaseContext:
    """A multiprocessing context safe for this process: ``spawn`` once CUDA may be initialised.

    Before any CUDA library is imported the platform default is kept (``fork`` is fast on Linux);
    afterwards ``spawn`` starts children from a fresh interpreter, which CUDA requires.
    """
    import multiprocessing  # here, not at import: it costs milliseconds most programs never use

    if cuda_may_be_initialised():
        return multiprocessing.get_context("spawn")
    return multiprocessing.get_context()
