"""What CUDA-linked software is installed, read from package metadata without importing it."""

from __future__ import annotations

import re
from importlib import metadata
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["Installed", "cuda_major_of", "cupy_distributions", "installed"]

# Distributions worth listing in a report, by name pattern.
_RELEVANT = re.compile(
    r"^(numpy|cupy(-.*)?|numba|numba-cuda|cuda-(python|bindings|core|toolkit|pathfinder)"
    r"|nvidia-.*|pycuda|torch|jax|jaxlib|jax-cuda\d+-(plugin|pjrt)|nvidia-ml-py|pynvml)$"
)
# Wheels whose own version is the CUDA version. Math libraries (cuBLAS, cuFFT, ...) are left out
# on purpose: they carry version numbers of their own (cuBLAS 12.9 is not "CUDA 12.9").
_VERSION_IS_CUDA = re.compile(
    r"^(cuda-bindings|cuda-python|cuda-toolkit|nvidia-cuda-(runtime|nvrtc))$"
)


class Installed(NamedTuple):
    """One installed distribution and the CUDA major it is built for (None: not CUDA-specific)."""

    name: str
    version: str
    cuda_major: int | None
    requires: tuple[str, ...] = ()


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
    if match := re.fullmatch(r"cupy-cuda(\d\d)\d?x?", name):  # cupy-cuda12x, cupy-cuda117
        return int(match.group(1))
    if match := re.fullmatch(r"nvidia-[a-z0-9-]+-cu(\d+)", name):  # CUDA 12 wheels: -cu12
        return int(match.group(1))
    if match := re.fullmatch(r"jax-cuda(\d+)-(plugin|pjrt)", name):
        return int(match.group(1))
    if _VERSION_IS_CUDA.match(name):
        return int(version.split(".")[0])
    if name == "torch":
        local = re.search(r"\+cu(\d+?)\d$", version)  # 2.9.0+cu126 -> 12; +cpu -> none
        if local:
            return int(local.group(1))
        if "+" in version:
            return None
        return _major_from_requires(requires)
    return None


def installed(paths: Iterable[str] | None = None) -> list[Installed]:
    """Relevant installed distributions, sorted by name; ``paths`` defaults to ``sys.path``."""
    found: dict[str, Installed] = {}
    distributions = (
        metadata.distributions(path=list(paths)) if paths is not None else metadata.distributions()
    )
    for dist in distributions:
        raw_name = dist.metadata["Name"]
        if not raw_name:
            continue
        name = _normalise(raw_name)
        if not _RELEVANT.match(name) or name in found:  # first on the path wins, as for imports
            continue
        requires = tuple(dist.requires or ())
        major = cuda_major_of(name, dist.version, requires)
        found[name] = Installed(name, dist.version, major, requires)
    return sorted(found.values())


def cupy_distributions(items: Iterable[Installed]) -> list[Installed]:
    """Every CuPy distribution: more than one means they overwrite each other's files."""
    return [item for item in items if item.name == "cupy" or item.name.startswith("cupy-cuda")]
