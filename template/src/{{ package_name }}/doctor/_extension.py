# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The doctor's part of the compiled CUDA extension: what it was built for, and its checks.

The doctor package imports it where the project has the extension; it adds its checks to CHECKS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..gpu._project import CUDA_MAJOR
from . import CHECKS, Finding, _capability, _named

if TYPE_CHECKING:
    from . import Facts

__all__ = ["compiled_extension", "extension_no_kernel_image", "extension_not_loaded"]


def compiled_extension() -> tuple[tuple[int, ...], tuple[int, ...], str | None]:
    """The compute capabilities the extension has machine code and PTX for, or why it fails.

    A compiled module that is missing (a source checkout never built) or does not load (a wheel
    of another platform, a truncated file) gives the import's error, never an exception. Loading
    it starts no CUDA: its runtime is linked in and starts on the first call.
    """
    try:
        from ..kernels import cuda_cpp

        return cuda_cpp.compiled_architectures(), cuda_cpp.ptx_architectures(), None
    except Exception as exc:  # a broken .so raises ImportError, OSError, even SystemError
        return (), (), f"{type(exc).__name__}: {exc}"


def _runs_on(capability: int, sass: tuple[int, ...], ptx: tuple[int, ...]) -> bool:
    """Whether a GPU of ``capability`` runs code built with machine code ``sass`` and ``ptx``.

    Machine code runs on GPUs of its major with an equal or newer minor; PTX on any GPU at least
    that new, once the driver has compiled it.
    """
    return any(a // 10 == capability // 10 and a <= capability for a in sass) or any(
        a <= capability for a in ptx
    )


def extension_not_loaded(facts: Facts) -> Finding | None:
    """The package was built with the compiled extension, but it does not import."""
    if facts.extension_error is None:
        return None
    return Finding(
        "extension-not-loaded",
        "error",
        f"the compiled extension cannot be imported ({facts.extension_error})",
        "every function of kernels.cuda_cpp, on the CPU too, calls the compiled module: each "
        "call raises the import's error",
        "install a wheel built for this platform and Python, or rebuild it from a checkout: "
        f"pip install --force-reinstall --no-deps . (with a CUDA {CUDA_MAJOR} nvcc and a "
        "C++ compiler)",
    )


def extension_no_kernel_image(facts: Facts) -> Finding | None:
    """The compiled extension carries no code that this GPU can run; CuPy stands in for it."""
    sass, ptx = facts.compiled_architectures, facts.compiled_ptx
    if not (sass or ptx):
        return None
    # nvcc numbers a capability 86 for 8.6.
    known = [(gpu, c[0] * 10 + c[1]) for gpu in facts.driver.gpus if (c := _capability(gpu))]
    if not (missing := [gpu for gpu, cc in known if not _runs_on(cc, sass, ptx)]):
        return None
    return Finding(
        "extension-no-kernel-image",
        "warning",
        f"the compiled extension was built for compute capabilities {_shown(sass)} (PTX: "
        f"{_shown(ptx)}); it cannot run on {_named(missing)}",
        "the compiled CUDA extension has machine code for some compute capabilities and PTX of "
        "some; on any other GPU kernels.cuda_cpp computes with CuPy instead (logged once)",
        "rebuild it for this GPU from a checkout: CUDAARCHS=native pip install . (with a "
        f"CUDA {CUDA_MAJOR} nvcc that still compiles for it: nvcc --list-gpu-arch lists "
        "what it can)",
    )


def _shown(architectures: tuple[int, ...]) -> str:
    return ", ".join(f"{a // 10}.{a % 10}" for a in architectures) or "none"


CHECKS.extend((extension_not_loaded, extension_no_kernel_image))
