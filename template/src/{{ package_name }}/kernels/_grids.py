# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The check of a 2-D grid, for the stencil example and the routes that launch ``laplacian.cu``.

It ships with them (copier.yml leaves it out of a project that has neither), beside
:func:`.checks.arrays`, which it calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..gpu import is_gpu_array
from . import checks

if TYPE_CHECKING:
    from collections.abc import Callable

    from .checks import Array, Checked

__all__ = ["checked_grid"]


def checked_grid(
    name: str,
    u: Array[Any],
    out: Array[Any] | None,
    *,
    accept: Callable[[object], bool] = is_gpu_array,
    takes: str = "NumPy or CuPy arrays",
) -> Checked:
    """:func:`.checks.arrays` for one 2-D float grid ``u`` and its ``out``; ValueError if not 2-D.

    ``out`` must not overlap ``u`` at all: a stencil reads the neighbours of what it writes.
    """
    checked = checks.arrays(name, {"u": u}, out=out, accept=accept, takes=takes)
    if len(checked.shape) != 2:
        raise ValueError(
            f"{name} needs a 2-D array, got {len(checked.shape)}-D with shape {checked.shape}"
        )
    return checked
