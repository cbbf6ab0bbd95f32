"""Ask the NVIDIA driver for its version and GPUs: NVML, then cuda.bindings, then nvidia-smi.

Each source is tried only when the one before it is unavailable, and none raises: a failure is
recorded as the reason the driver could not be read.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from ._facts import DriverInfo, GPUInfo
from ._tool import run_tool

__all__ = ["query_driver"]


def _cuda_version(encoded: int) -> str:
    """Decode a CUDA version as NVML and the driver API give it: 1000 * major + 10 * minor."""
    return f"{encoded // 1000}.{encoded % 1000 // 10}"


def _text(value: Any) -> str:
    """A name as the driver gives it: bytes from older bindings, in no promised encoding."""
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)


def _from_nvml() -> DriverInfo:
    import pynvml  # the module of the nvidia-ml-py distribution

    pynvml.nvmlInit()
    try:
        gpus = []
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            major, minor = pynvml.nvmlDeviceGetCudaComputeCapability(handle)
            memory = pynvml.nvmlDeviceGetMemoryInfo(handle).total // (1024 * 1024)
            name = _text(pynvml.nvmlDeviceGetName(handle))
            gpus.append(GPUInfo(index, name, f"{major}.{minor}", int(memory)))
        return DriverInfo(
            _text(pynvml.nvmlSystemGetDriverVersion()),
            _cuda_version(int(pynvml.nvmlSystemGetCudaDriverVersion_v2())),
            tuple(gpus),
            "NVML (nvidia-ml-py)",
        )
    finally:
        pynvml.nvmlShutdown()


def _from_cuda_bindings() -> DriverInfo:
    from cuda.bindings import driver

    (status,) = driver.cuInit(0)
    if status != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuInit failed: {status.name} ({int(status)})")
    status, version = driver.cuDriverGetVersion()
    status, count = driver.cuDeviceGetCount()
    gpus = []
    for index in range(count):
        _, device = driver.cuDeviceGet(index)
        _, raw_name = driver.cuDeviceGetName(64, device)
        _, total = driver.cuDeviceTotalMem(device)
        attr = driver.CUdevice_attribute
        _, major = driver.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device
        )
        _, minor = driver.cuDeviceGetAttribute(
            attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device
        )
        name = _text(raw_name).split("\x00", 1)[0]
        gpus.append(GPUInfo(index, name, f"{major}.{minor}", int(total) // (1024 * 1024)))
    # The driver API gives the CUDA version it supports, not the driver's own version number.
    return DriverInfo(None, _cuda_version(int(version)), tuple(gpus), "cuda.bindings")


def _smi_query(smi: str, fields: str) -> list[list[str]]:
    """Rows of ``nvidia-smi --query-gpu=FIELDS`` as lists of stripped strings."""
    out = run_tool(smi, f"--query-gpu={fields}", "--format=csv,noheader,nounits")
    return [[part.strip() for part in row.split(",")] for row in out.splitlines() if row.strip()]


def _number(text: str) -> int:
    """An integer field, or 0 for what nvidia-smi cannot tell ("[N/A]", "[Not Supported]")."""
    try:
        return int(float(text))
    except ValueError:
        return 0


def _from_nvidia_smi() -> DriverInfo:
    smi = shutil.which("nvidia-smi")
    if smi is None:
        raise FileNotFoundError("nvidia-smi is not on PATH")
    # The driver version first and alone: old drivers reject newer fields such as compute_cap,
    # and an old driver is exactly what the doctor must be able to report.
    versions = _smi_query(smi, "driver_version")
    version = versions[0][0] if versions else None
    try:
        rows = _smi_query(smi, "index,name,compute_cap,memory.total")
    except subprocess.CalledProcessError:
        rows = [[*row, "unknown", "0"] for row in _smi_query(smi, "index,name")]
    gpus = tuple(
        GPUInfo(_number(index), name, capability, _number(memory))
        for index, name, capability, memory in rows
    )
    return DriverInfo(version, None, gpus, "nvidia-smi")


def query_driver(*, probe: bool = False) -> DriverInfo:
    """Ask each source in turn; the first that answers wins, and the failures say why.

    cuda.bindings is asked only with ``probe``: it is a GPU library, and the doctor imports none
    unless told to. NVML (a thin ctypes wrapper) and nvidia-smi are always asked.
    """
    failures = []
    sources = [_from_nvml, _from_cuda_bindings, _from_nvidia_smi]
    if not probe:
        sources.remove(_from_cuda_bindings)
    for source in sources:
        try:
            info = source()
        except Exception as exc:  # any failure of a source is a finding, not a crash
            failures.append(f"{source.__name__.removeprefix('_from_')}: {exc!r}")
            continue
        if info.present:
            return info
    return DriverInfo(None, None, (), "none", "; ".join(failures))
