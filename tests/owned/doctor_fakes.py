"""Fake environments for the doctor's tests: site folders of installed metadata, tools on PATH,
and the driver's library (NVML through nvidia-ml-py) as a module.

The fake library raises what the real one raises on a host without a driver (recorded with
nvidia-ml-py 13.615): the same exception
class names and messages, so the reasons the doctor prints are tested as users will read them.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType, SimpleNamespace
from typing import TYPE_CHECKING, ClassVar, NamedTuple

import pytest

if TYPE_CHECKING:
    from pathlib import Path

# Fake tools are shell scripts.
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="the fake tools are shell scripts")


def metadata_text(name: str, version: str | None, requires: tuple[str, ...] = ()) -> str:
    """A METADATA file; ``version=None`` leaves the Version header out."""
    lines = ["Metadata-Version: 2.1", f"Name: {name}"]
    if version is not None:
        lines.append(f"Version: {version}")
    lines += [f"Requires-Dist: {req}" for req in requires]
    return "\n".join(lines) + "\n"


def add_dist(site: Path, folder: str, metadata: bytes) -> Path:
    """One ``.dist-info`` folder holding exactly these METADATA bytes."""
    info = site / f"{folder}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_bytes(metadata)
    return info


def fake_site(site: Path, *dists: tuple[str, str] | tuple[str, str, tuple[str, ...]]) -> list[str]:
    """A folder of well-formed distributions (name, version[, requires]), as a search path."""
    for dist in dists:
        name, version, requires = (*dist, ())[:3]
        text = metadata_text(name, version, requires)
        add_dist(site, f"{name.replace('-', '_')}-{version}", text.encode())
    return [str(site)]


def fake_tool(folder: Path, name: str, script: str) -> Path:
    """An executable shell script called ``name`` in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    tool.chmod(0o755)
    return tool


def path_with(folder: Path) -> str:
    """PATH with ``folder`` first, so its tools shadow the real ones."""
    return os.pathsep.join([str(folder), os.environ.get("PATH", "")])


class DriverGPU(NamedTuple):
    """One GPU as a fake driver library reports it."""

    name: str
    capability: tuple[int, int]
    memory_bytes: int


class NVMLError(Exception):
    """nvidia-ml-py's base class: repr() shows only NVML's code, str() NVML's text for it."""

    code: ClassVar[int] = 999
    text: ClassVar[str] = "Unknown Error"

    def __init__(self) -> None:
        super().__init__(self.code)

    def __str__(self) -> str:
        return self.text


class NVMLError_LibraryNotFound(NVMLError):
    """What ``nvmlInit()`` raises where libnvidia-ml.so.1 is missing (nvidia-ml-py's name)."""

    code = 12
    text = "NVML Shared Library Not Found"


class NVMLError_NotSupported(NVMLError):
    """What a query raises where the GPU has no such figure (memory on GB10 or Jetson)."""

    code = 3
    text = "Not Supported"


def fake_pynvml(
    *gpus: DriverGPU,
    driver: str = "580.65.06",
    cuda: int = 13000,
    init_error: Exception | None = None,
    shutdown_error: Exception | None = None,
) -> ModuleType:
    """A ``pynvml`` module; ``calls`` lists nvmlInit/nvmlShutdown in the order they were made.

    A GPU whose ``memory_bytes`` is negative has no memory figure: NVML raises NotSupported.
    """
    module = ModuleType("pynvml")
    calls: list[str] = []

    def init() -> None:
        calls.append("nvmlInit")
        if init_error is not None:
            raise init_error

    def gpu(handle: int) -> DriverGPU:
        return gpus[handle]

    def memory(handle: int) -> SimpleNamespace:
        if gpu(handle).memory_bytes < 0:
            raise NVMLError_NotSupported()
        return SimpleNamespace(total=gpu(handle).memory_bytes)

    def shutdown() -> None:
        calls.append("nvmlShutdown")
        if shutdown_error is not None:
            raise shutdown_error

    module.__dict__.update(
        calls=calls,
        nvmlInit=init,
        NVMLError=NVMLError,
        NVMLError_NotSupported=NVMLError_NotSupported,
        nvmlShutdown=shutdown,
        nvmlDeviceGetCount=lambda: len(gpus),
        nvmlDeviceGetHandleByIndex=lambda index: index,
        nvmlDeviceGetCudaComputeCapability=lambda handle: gpu(handle).capability,
        nvmlDeviceGetMemoryInfo=memory,
        nvmlDeviceGetName=lambda handle: gpu(handle).name,
        nvmlSystemGetDriverVersion=lambda: driver,
        nvmlSystemGetCudaDriverVersion_v2=lambda: cuda,
    )
    return module
