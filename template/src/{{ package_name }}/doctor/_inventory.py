# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""What CUDA-linked software is installed, read from package metadata without importing it."""

from __future__ import annotations

import re
from importlib import metadata
from typing import TYPE_CHECKING

from ._environment import Installed, Unreadable

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = [
    "cuda_major_of",
    "cupy_distributions",
    "installed",
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
