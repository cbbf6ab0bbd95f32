# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Ask the NVIDIA driver for its version and GPUs: NVML through nvidia-ml-py, then nvidia-smi.

Each source is tried only when the one before it is unavailable, and none raises: a failure is
recorded as the reason the driver could not be read. docs/troubleshooting.md ("How the doctor
reads the driver") compares the sources and says why they are asked in this order. ``run_tool``
runs nvidia-smi here and nvcc for the gatherer.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import TYPE_CHECKING, Any

from ._environment import DriverInfo, GPUInfo

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["SOURCES", "query_driver", "run_tool"]


def run_tool(*argv: str, timeout: float = 30) -> str:
    """The standard output of ``argv``, decoded as UTF-8 with replacement characters.

    A tool may print bytes that are not UTF-8 (a GPU name in a legacy code page, a localised
    error): they become U+FFFD rather than a ``UnicodeDecodeError`` that would cost the report.

    Raises
    ------
    OSError
        When the tool cannot be started.
    subprocess.SubprocessError
        When it fails (``CalledProcessError``) or runs past ``timeout``.
    """
    # Decoded here, so that a failure's CalledProcessError carries the tool's words as text.
    done = subprocess.run(
        argv, capture_output=True, timeout=timeout, check=True, encoding="utf-8", errors="replace"
    )
    return done.stdout


def _cuda_version(encoded: int) -> str:
    """Decode a CUDA version as NVML gives it: 1000 * major + 10 * minor."""
    return f"{encoded // 1000}.{encoded % 1000 // 10}"


# NVML counts memory in bytes; the report shows MiB.
_MIB = 1024 * 1024


def _text(value: Any) -> str:
    """A name as the driver gives it: bytes from older bindings, in no promised encoding."""
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)


def _from_nvml() -> DriverInfo:
    """NVML through nvidia-ml-py: a ctypes wrapper that imports no GPU library."""
    import pynvml  # the module of the nvidia-ml-py distribution

    pynvml.nvmlInit()
    try:
        gpus = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(handle)
            memory = int(pynvml.nvmlDeviceGetMemoryInfo(handle).total) // _MIB
            name = _text(pynvml.nvmlDeviceGetName(handle))
            gpus.append(GPUInfo(index, name, f"{major}.{minor}", memory))
        return DriverInfo(
            _text(pynvml.nvmlSystemGetDriverVersion()),
            _cuda_version(int(pynvml.nvmlSystemGetCudaDriverVersion_v2())),
            tuple(gpus),
            "NVML (nvidia-ml-py)",
        )
    finally:
        pynvml.nvmlShutdown()


def _smi_query(smi: str, fields: str) -> list[list[str]]:
    """Rows of ``nvidia-smi --query-gpu=FIELDS`` as lists of stripped strings."""
    out = run_tool(smi, f"--query-gpu={fields}", "--format=csv,noheader,nounits")
    # A warning (a corrupt infoROM, pending page retirements) may come first; every row asked
    # for here starts with a number (a version, an index).
    rows = (row for row in out.splitlines() if row[:1].isdigit())
    return [[part.strip() for part in row.split(",")] for row in rows]


def _number(text: str) -> int:
    """An integer field, or 0 for what nvidia-smi cannot tell ("[N/A]", "[Not Supported]")."""
    try:
        return int(float(text))
    except ValueError:
        return 0


def _from_nvidia_smi() -> DriverInfo:
    """The driver's own command-line tool, which reads NVML in a process of its own."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        raise FileNotFoundError("nvidia-smi is not on PATH")
    # The driver version first and alone: old drivers reject newer fields such as compute_cap,
    # and an old driver is exactly what the doctor must be able to report.
    versions = _smi_query(smi, "driver_version")
    version = versions[0][0] if versions else None
    # nvidia-smi's CSV does not quote: a comma in a GPU's name splits it, so the name is
    # everything between the first field and the fixed ones after it.
    try:
        rows = [
            (index, ", ".join(name), capability, memory)
            for index, *name, capability, memory in _smi_query(
                smi, "index,name,compute_cap,memory.total"
            )
        ]
    except subprocess.CalledProcessError:
        rows = [
            (index, ", ".join(name), "unknown", "0")
            for index, *name in _smi_query(smi, "index,name")
        ]
    gpus = tuple(
        GPUInfo(_number(index), name, capability, _number(memory))
        for index, name, capability, memory in rows
    )
    return DriverInfo(version, None, gpus, "nvidia-smi")


def _named(source: Callable[[], DriverInfo]) -> str:
    return source.__name__.removeprefix("_from_")


def _why(exc: Exception) -> str:
    """``Type: message``: repr() of NVMLError_LibraryNotFound is only its number, str() says why.

    A tool's own words follow: nvidia-smi prints why it failed ("couldn't communicate with the
    NVIDIA driver") on its standard output, which the exit status alone does not tell.
    """
    text = f"{type(exc).__name__}: {exc}" if str(exc) else repr(exc)
    if isinstance(exc, subprocess.CalledProcessError) and (
        said := " ".join(f"{exc.stdout or ''} {exc.stderr or ''}".split())
    ):
        text += f" ({said})"
    return text


# NVML through nvidia-ml-py first: it is in every GPU extra, imports nothing but ctypes (so it
# starts no CUDA), and gives the driver's version as NVIDIA prints it. nvidia-smi reads the same
# NVML in a process of its own. Not asked: cuda.core.system (the same NVML, but importing it
# counts as "CUDA may be initialised" in the caller) and CUDA's driver API (cuInit starts CUDA).
SOURCES: tuple[Callable[[], DriverInfo], ...] = (_from_nvml, _from_nvidia_smi)


def query_driver() -> DriverInfo:
    """Ask each of :data:`SOURCES` in turn; the first that answers wins, the failures say why."""
    failures = []
    for source in SOURCES:
        try:
            info = source()
        except Exception as exc:  # any failure of a source is a finding, not a crash
            failures.append(f"{_named(source)}: {_why(exc)}")
            continue
        if info.present:
            return info
        failures.append(f"{_named(source)}: answered with nothing")
    return DriverInfo(None, None, (), "none", "; ".join(failures))
