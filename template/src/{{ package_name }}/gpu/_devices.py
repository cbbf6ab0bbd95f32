# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The published peak memory bandwidth of GPUs: how close a kernel comes to what the card can do.

One table, read by the benchmarks (``benchmarks/kernels.py`` prints each GPU figure as a share
of it). Keyed by the name the driver reports (``cudaGetDeviceProperties``, ``nvidia-smi``),
which tells apart one chip sold with two memories (the H100 SXM's HBM3 and the PCIe card's
HBM2e). A GPU that is not here gets no share, not a guess: add its datasheet figure here.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PEAK_BANDWIDTH", "peak_bandwidth"]

# Bytes per second, from NVIDIA's datasheets.
PEAK_BANDWIDTH: Final[dict[str, float]] = {
    "Tesla T4": 320e9,  # GDDR6, compute capability 7.5: GitHub's hosted GPU runner
    "NVIDIA L4": 300e9,
    "NVIDIA A100-SXM4-80GB": 2.039e12,
    "NVIDIA H100 80GB HBM3": 3.35e12,  # H100 SXM5
    "NVIDIA H200": 4.8e12,
}


def peak_bandwidth(name: str) -> float | None:
    """The published peak memory bandwidth of the GPU called ``name``, or None if unknown."""
    return PEAK_BANDWIDTH.get(name.strip())
