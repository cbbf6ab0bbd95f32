# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""Types of the compiled extension (csrc/bindings.cpp), for mypy and editors."""

from typing import Any, Final

CUDA_ARCHITECTURES: Final[str]
CUDA_COMPILER_VERSION: Final[str]
CUDA_RUNTIME_VERSION: Final[int]

class CudaError(RuntimeError): ...

def axpy_cpu(a: float, x: Any, y: Any, out: Any) -> None: ...
def axpy_cuda(a: float, x: Any, y: Any, out: Any, stream: int) -> None: ...
def cuda_device_count() -> int: ...
