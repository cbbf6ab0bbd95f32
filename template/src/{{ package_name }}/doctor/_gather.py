# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Read the environment once into :class:`Facts`; each reader reports failure, never raises."""

from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
from importlib.abc import MetaPathFinder
from importlib.machinery import PathFinder
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..gpu import GPUUnavailableError, backend, fork_hazard, reset_detection
from ..gpu._detect import driver_library_problem, precheck
from ..gpu._project import CUDA_MODULES, FORCE_CPU_VARIABLES, REQUIRE_GPU_VARIABLES
from ._driver import query_driver, run_tool
from ._environment import Decision, Facts, Nvcc
from ._inventory import installed

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = [
    "CompiledExtension",
    "compiled_extension",
    "decide",
    "gather",
    "in_container",
    "query_nvcc",
]

# Shown in the report: the variables that steer the GPU module.
_OVERRIDES = ("CUDA_VISIBLE_DEVICES", *FORCE_CPU_VARIABLES, *REQUIRE_GPU_VARIABLES)


def in_container() -> bool:
    """Best-effort: Docker, Podman and Kubernetes leave one of these traces."""
    if Path("/.dockerenv").exists() or Path("/run/.containerenv").exists():
        return True
    try:
        cgroup = Path("/proc/1/cgroup").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return bool(re.search(r"docker|kubepods|containerd|libpod", cgroup))


def query_nvcc() -> Nvcc:
    """The nvcc on PATH and its release; a failure to run it is recorded, not raised."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return Nvcc(None)
    try:
        out = run_tool(nvcc, "--version")
    except (OSError, subprocess.SubprocessError) as exc:
        return Nvcc(nvcc, error=repr(exc))
    release = re.search(r"release (\d+\.\d+)", out)
    return Nvcc(nvcc, release.group(1) if release else None)


def _installed(fullname: str, path: Sequence[str] | None) -> bool:
    """Whether ``fullname`` is on the search path (as files: nothing is imported)."""
    return PathFinder.find_spec(fullname, path) is not None


class _RefuseCudaImports(MetaPathFinder):
    """Refuse to import CUDA libraries, and remember which one was asked for.

    One that is not installed fails as its import would, so the GPU module decides as it will in
    the program ("CuPy is not installed"; with ``REQUIRE_GPU``, the error it will raise).
    """

    def __init__(self) -> None:
        self.refused: list[str] = []

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> ModuleSpec | None:
        if not any(fullname == m or fullname.startswith(f"{m}.") for m in CUDA_MODULES):
            return None
        if not _installed(fullname, path):
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        self.refused.append(fullname)
        raise ModuleNotFoundError(f"{fullname} is imported only with --probe", name=fullname)


def _ask_backend() -> Decision:
    try:
        info = backend()
    except GPUUnavailableError as exc:
        return Decision(None, str(exc), "GPUUnavailableError")
    except Exception as exc:  # the package would raise this too: it is the finding
        return Decision(None, str(exc) or repr(exc), type(exc).__name__)
    # NumPy although the first steps (overrides, CUDA_VISIBLE_DEVICES, the driver library) let
    # the GPU library decide: it is installed and failed, or it is not installed.
    return Decision(info.name, info.reason, library_decided=precheck() is None)


def decide(*, probe: bool = False) -> Decision:
    """What the GPU module decides here, asked through its public ``backend()``.

    Without ``probe`` no CUDA library may be imported: detection runs with their imports refused,
    which is exact for every step before the library probe (overrides, ``CUDA_VISIBLE_DEVICES``,
    the driver library) and for a library that is not installed. When detection reaches an
    installed library, the decision is left open.
    """
    reset_detection()
    if probe:
        return _ask_backend()
    guard = _RefuseCudaImports()
    # Process-wide for the few milliseconds detection takes; a thread importing CuPy meanwhile
    # would see it refused, which is why --probe exists for programs that care.
    sys.meta_path.insert(0, guard)
    try:
        decision = _ask_backend()
    finally:
        sys.meta_path.remove(guard)
        reset_detection()  # a decision taken with CUDA libraries refused must not be kept
    if guard.refused:
        return Decision(
            None, f"a driver is present; run with --probe to import {guard.refused[0]} and confirm"
        )
    return decision


class CompiledExtension(NamedTuple):
    """The package's compiled CUDA extension: its machine code and PTX, or why it did not load."""

    architectures: tuple[int, ...] = ()
    ptx: tuple[int, ...] = ()
    error: str | None = None


def compiled_extension() -> CompiledExtension:
    """What the package's compiled CUDA extension was built for; empty for a package without one.

    A package rendered without it has no ``kernels/cuda_cpp.py``; one rendered with it whose
    compiled module is missing (a source checkout never built) or does not load (a wheel of
    another platform, a truncated file) gets the import's error instead, never an exception.
    Loading the extension starts no CUDA: its runtime is linked in and starts on the first call.
    """
    package = __name__.rsplit(".", 2)[0]
    name = f"{package}.kernels.cuda_cpp"
    try:
        if importlib.util.find_spec(name) is None:  # rendered without the extension
            return CompiledExtension()
        module = importlib.import_module(name)
        return CompiledExtension(module.compiled_architectures(), module.ptx_architectures())
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name + ".").startswith(exc.name + "."):  # no kernels at all
            return CompiledExtension()
        return CompiledExtension(error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a broken .so raises ImportError, OSError, even SystemError
        return CompiledExtension(error=f"{type(exc).__name__}: {exc}")


def gather(*, probe: bool = False, paths: Iterable[str] | None = None) -> Facts:
    """Look at the environment (``paths``: where to read package metadata; default sys.path).

    Called from your own program, it also notes a CUDA library loaded before a ``fork``-based
    multiprocessing pool could copy it (from the command line nothing is loaded yet), and it
    detects afresh: the GPU module's cached decision is reset, as ``reset_detection()`` does.
    """
    import multiprocessing

    # Before anything the doctor itself imports: the fork check is about the calling program.
    cuda_loaded = fork_hazard() is not None  # mp_context()'s own test: CUDA or Numba's threads
    # Not get_context().get_start_method(): that fixes the start method, and the program's own
    # set_start_method("spawn") would then fail. With none set, the first listed is the default.
    start_method = (
        multiprocessing.get_start_method(allow_none=True)
        or multiprocessing.get_all_start_methods()[0]
    )
    packages, unreadable = installed(paths)
    extension = compiled_extension()
    return Facts(
        packages=tuple(packages),
        unreadable=tuple(unreadable),
        driver=query_driver(),
        nvcc=query_nvcc(),
        decision=decide(probe=probe),
        environment=tuple((n, os.environ[n]) for n in _OVERRIDES if n in os.environ),
        in_container=in_container(),
        cuda_loaded=cuda_loaded,
        start_method=start_method,
        python=sys.version.split()[0],
        platform=platform.platform(),
        compiled_architectures=extension.architectures,
        compiled_ptx=extension.ptx,
        extension_error=extension.error,
        driver_library=driver_library_problem(),
    )
