"""The NVRTC check of CuPy kernels where it cannot run: it says why; and what it refuses.

Its compiles run against the real wheels in cuda-template's tests/test_cupy_compile.py.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

import cupy_compile

if TYPE_CHECKING:
    from types import ModuleType


def test_without_cupy_the_reason_names_the_extra_that_brings_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    reason = cupy_compile.nvrtc_unavailable()
    assert reason is not None
    assert reason.startswith("CuPy cannot be imported")
    assert "the cuda extra brings it" in reason


def test_a_cupy_without_its_code_generator_is_a_reason_not_an_error(
    fake_gpu: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A CuPy that imports but whose private generator moved (a real one may be loaded too).
    monkeypatch.setitem(sys.modules, "cupy._core", None)
    reason = cupy_compile.nvrtc_unavailable()
    assert reason is not None
    assert "lacks the code generator this check uses" in reason


def test_something_other_than_a_cupy_kernel_is_refused(
    fake_gpu: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    for kind in ("ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule"):
        monkeypatch.setattr(fake_gpu, kind, type(kind, (), {}), raising=False)
    with pytest.raises(TypeError, match=r"takes a cupy\.ElementwiseKernel, ReductionKernel"):
        cupy_compile.nvrtc_errors(len)
