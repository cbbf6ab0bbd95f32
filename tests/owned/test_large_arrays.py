# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""The memory guard of the large-array tests, against a fake CuPy: skip, fail or run, and why."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import large_arrays
from large_arrays import GIB, MARGIN, N, device_room

ARRAY = N * 4  # one float32 array of N elements: 8 GiB and a little


class FakeDevice:
    """A device of ``total`` bytes with ``used`` taken by others and ``pooled`` in CuPy's pool."""

    def __init__(self, total: int, used: int = 0, pooled: int = 0) -> None:
        self.total, self.used, self.pooled = total, used, pooled

    def free_all_blocks(self) -> None:
        self.pooled = 0

    def mem_get_info(self) -> tuple[int, int]:
        return self.total - self.used - self.pooled, self.total


def install(monkeypatch: pytest.MonkeyPatch, device: FakeDevice) -> None:
    """A ``cupy`` that has the memory pools and ``memGetInfo`` of ``device``, nothing else."""
    pool = SimpleNamespace(free_all_blocks=device.free_all_blocks)
    cupy = SimpleNamespace(
        get_default_memory_pool=lambda: pool,
        get_default_pinned_memory_pool=lambda: SimpleNamespace(free_all_blocks=lambda: None),
        cuda=SimpleNamespace(runtime=SimpleNamespace(memGetInfo=device.mem_get_info)),
    )
    monkeypatch.setitem(sys.modules, "cupy", cupy)


def outcome(device: FakeDevice, arrays: int, monkeypatch: pytest.MonkeyPatch) -> str:
    install(monkeypatch, device)
    try:
        device_room(arrays=arrays)
    except pytest.skip.Exception as exc:
        return f"skip: {exc.msg}"
    except pytest.fail.Exception as exc:
        return f"fail: {exc.msg}"
    return "run"


def test_a_16_gb_t4_skips_the_axpy_test_with_the_figures(
    no_overrides: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUIRE_GPU", "1")  # too small is not an error, even on GPU CI
    said = outcome(FakeDevice(total=15 * GIB), arrays=3, monkeypatch=monkeypatch)
    assert said == (
        "skip: needs 24.0 GiB of GPU memory (3 x 8.0 GiB); this GPU has 15.0 GiB in all"
    )


def test_memory_in_cupys_pool_counts_as_free(
    no_overrides: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 40 GiB device whose pool still holds the previous test's 24 GiB: the driver calls
    # that used, but it is this process's to reuse.
    device = FakeDevice(total=40 * GIB, pooled=24 * GIB)
    assert outcome(device, arrays=3, monkeypatch=monkeypatch) == "run"
    assert device.pooled == 0


def test_a_large_enough_gpu_whose_memory_is_taken_fails_under_require_gpu(
    no_overrides: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REQUIRE_GPU", "1")
    said = outcome(FakeDevice(total=80 * GIB, used=60 * GIB), arrays=3, monkeypatch=monkeypatch)
    assert said.startswith("fail: needs 24.0 GiB of GPU memory")
    assert "20.0 GiB of 80.0 GiB free: another process holds the rest" in said


def test_a_large_enough_gpu_whose_memory_is_taken_skips_without_require_gpu(
    no_overrides: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = outcome(FakeDevice(total=80 * GIB, used=60 * GIB), arrays=3, monkeypatch=monkeypatch)
    assert said.startswith("skip: needs 24.0 GiB")


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    total=st.integers(0, 200 * GIB),
    used=st.integers(0, 200 * GIB),
    arrays=st.integers(1, 4),
    required=st.booleans(),
)
def test_the_guard_runs_exactly_when_the_arrays_and_the_margin_fit(
    no_overrides: None,
    monkeypatch: pytest.MonkeyPatch,
    total: int,
    used: int,
    arrays: int,
    required: bool,
) -> None:
    used = min(used, total)
    with monkeypatch.context() as patch:
        patch.setenv("REQUIRE_GPU", "1" if required else "0")
        said = outcome(FakeDevice(total=total, used=used), arrays, patch)
    need = arrays * ARRAY + MARGIN
    if total < need:
        assert said.startswith("skip:")
        assert "in all" in said
    elif total - used < need:
        assert said.startswith("fail:" if required else "skip:")
    else:
        assert said == "run"


def test_nvml_answers_where_cupy_is_not_installed(
    no_overrides: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy raises ImportError
    monkeypatch.setattr(large_arrays, "_nvml_memory", lambda: (2 * GIB, 16 * GIB))
    with pytest.raises(pytest.skip.Exception, match=r"this GPU has 16\.0 GiB in all"):
        device_room(arrays=3)
