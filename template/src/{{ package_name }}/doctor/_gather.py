# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Read the environment once into :class:`Facts`; each reader reports failure, never raises.

Installed packages are read from their metadata, without importing them.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
from importlib import metadata
from importlib.abc import MetaPathFinder
from importlib.machinery import PathFinder
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..gpu import GPUUnavailableError, backend, fork_hazard, reset_detection
from ..gpu._detect import driver_library_problem, precheck
from ..gpu._project import CUDA_MODULES, FORCE_CPU_VARIABLES, REQUIRE_GPU_VARIABLES
from ._driver import query_driver, run_tool
from ._environment import Decision, Facts, Installed, Nvcc, Unreadable

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

__all__ = [
    "CompiledExtension",
    "compiled_extension",
    "cuda_major_of",
    "cupy_distributions",
    "decide",
    "gather",
    "in_container",
    "installed",
    "query_nvcc",
    "toolkit_wheels",
    "version_tuple",
]

# Distributions worth listing in a report, by name pattern.
_RELEVANT = re.compile(
    r"^(numpy|cupy(-.*)?|numba|numba-cuda(-mlir)?|cuda-(python|bindings|core|toolkit|pathfinder)"
    r"|nvidia-.*|pycuda|torch|jax|jaxlib|jax-cuda\d+-(plugin|pjrt)|nvidia-ml-py|pynvml)$"
)
# Wheels whose own version is the CUDA version. Math libraries (cuBLAS, cuFFT, ...) are left out
# on purpose: they carry version numbers of their own (cuBLAS 12.9 is not "CUDA 12.9").
_VERSION_IS_CUDA = re.compile(
    r"^(cuda-bindings|cuda-python|cuda-toolkit|nvidia-cuda-(runtime|nvrtc))$"
)

# Wheels that carry the CUDA toolkit itself: their version is the toolkit's release.
_TOOLKIT = re.compile(r"^(cuda-toolkit|nvidia-cuda-(runtime|nvrtc)(-cu\d+)?)$")


def version_tuple(version: str | None) -> tuple[int, ...]:
    """The leading dotted numbers of a version ("580.65.06" -> (580, 65, 6)); () for "abc", None."""
    if version is None:
        return ()
    match = re.match(r"\d+(\.\d+)*", version.strip())
    return tuple(int(part) for part in match.group().split(".")) if match else ()


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _major_from_requires(requires: Sequence[str]) -> int | None:
    """The CUDA major a wheel depends on (how PyPI's torch marks its CUDA build)."""
    for req in requires:
        if "extra ==" in req:
            continue
        suffixed = re.match(r"^nvidia-[a-z0-9-]+-cu(\d+)\b", req)
        if suffixed:
            return int(suffixed.group(1))
        toolkit = re.match(r"^cuda-(toolkit|bindings)\b[^;]*?(==|>=|~=)\s*(\d+)", req)
        if toolkit:
            return int(toolkit.group(3))
    return None


def cuda_major_of(name: str, version: str, requires: Sequence[str] = ()) -> int | None:
    """The CUDA major of a distribution, from its name, version or dependencies."""
    name = _normalise(name)
    if match := re.fullmatch(r"cupy-cuda(\d\d)\d?x?", name):  # cupy-cudaNNx, cupy-cuda117
        return int(match.group(1))
    if match := re.fullmatch(r"nvidia-[a-z0-9-]+-cu(\d+)", name):  # CUDA 12 wheels: -cu12
        return int(match.group(1))
    if match := re.fullmatch(r"jax-cuda(\d+)-(plugin|pjrt)", name):
        return int(match.group(1))
    if _VERSION_IS_CUDA.match(name):
        return next(iter(version_tuple(version)), None)
    if name == "torch":
        local = re.search(r"\+cu(\d+?)\d$", version)  # 2.9.0+cu126 -> 12; +cpu -> none
        if local:
            return int(local.group(1))
        if "+" in version:
            return None
        return _major_from_requires(requires)
    return None


def _read(dist: metadata.Distribution) -> Installed | None:
    """One distribution, or None when it is not worth listing.

    Raises whatever broken metadata raises (``UnicodeDecodeError`` for a METADATA that is not
    UTF-8, ``ValueError`` for a missing or meaningless version); the caller reports it.
    """
    meta = dist.metadata
    # `in` first: a missing header gives None with a DeprecationWarning today, KeyError later;
    # and PackageMetadata promises no .get() before Python 3.12.
    raw_name = meta["Name"] if "Name" in meta else None  # noqa: SIM401
    if not raw_name:
        raise ValueError("no Name in its metadata")
    name = _normalise(raw_name)
    if not _RELEVANT.match(name):
        return None
    version = meta["Version"] if "Version" in meta else None  # noqa: SIM401
    if not version or not version_tuple(version):
        raise ValueError(f"{name} has no usable version ({version!r})")
    requires = tuple(dist.requires or ())
    return Installed(name, version, cuda_major_of(name, version, requires), requires)


def _where(dist: metadata.Distribution) -> str:
    # importlib.metadata has no public way to name a distribution's metadata folder; the one
    # implementation behind sys.path keeps it in `_path`, and anything else is shown as it is.
    return str(getattr(dist, "_path", dist))


def installed(
    paths: Iterable[str] | None = None,
) -> tuple[list[Installed], list[Unreadable]]:
    """Relevant installed distributions, sorted by name, and the metadata that could not be read.

    ``paths`` defaults to ``sys.path``. A broken distribution is reported, never raised: one bad
    METADATA file must not cost the rest of the inventory.
    """
    found: dict[str, Installed] = {}
    unreadable: list[Unreadable] = []
    try:
        distributions = list(
            metadata.distributions(path=list(paths))
            if paths is not None
            else metadata.distributions()
        )
    except Exception as exc:  # a hostile sys.path entry: report it, keep the rest of the report
        return [], [Unreadable("the search path", repr(exc))]
    for dist in distributions:
        try:
            item = _read(dist)
        except Exception as exc:  # broken metadata takes many forms; each becomes a finding
            unreadable.append(Unreadable(_where(dist), repr(exc)))
            continue
        if item is not None and item.name not in found:  # first on the path wins, as for imports
            found[item.name] = item
    return sorted(found.values()), unreadable


def cupy_distributions(items: Iterable[Installed]) -> list[Installed]:
    """Every CuPy distribution: more than one means they overwrite each other's files."""
    return [item for item in items if item.name == "cupy" or item.name.startswith("cupy-cuda")]


def toolkit_wheels(items: Iterable[Installed]) -> list[Installed]:
    """The wheels that install the CUDA toolkit (runtime, NVRTC), whose version is its release."""
    return [item for item in items if _TOOLKIT.match(item.name)]


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
