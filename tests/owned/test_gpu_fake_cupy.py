"""The fake CuPys behave as CuPy does where GPU code relies on it: fake-GPU tests mean something.

Each test pins one behaviour that a fake's docstring promises; a fake that drifted towards NumPy
(an ndarray subclass, say) would let a GPU path pass here and fail on a real GPU. Those that take
``make`` run on both fakes: the seed the render ships (fake_cupy_seed here) and the full one the
owned tests use (fake_cupy); the rest prove what only the full one models.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np
import pytest

import fake_cupy_seed
from fake_cupy import CUDARuntimeError, make_fake_cupy

FakeCupyMaker = Callable[..., ModuleType]


@pytest.fixture(params=[fake_cupy_seed.make_fake_cupy, make_fake_cupy], ids=["seed", "full"])
def make(request: pytest.FixtureRequest) -> FakeCupyMaker:
    """Each fake's ``make_fake_cupy``."""
    maker: FakeCupyMaker = request.param
    return maker


def test_numpy_refuses_a_device_array_with_cupys_words(make: FakeCupyMaker) -> None:
    fake = make()
    with pytest.raises(TypeError, match=r"Implicit conversion to a NumPy array is not allowed"):
        np.asarray(fake.asarray([1.0]))


def test_a_device_array_is_not_a_numpy_array(make: FakeCupyMaker) -> None:
    fake = make()
    assert not isinstance(fake.asarray([1.0]), np.ndarray)


def test_get_copies_to_the_host(make: FakeCupyMaker) -> None:
    fake = make()
    device = fake.asarray([1.0, 2.0])
    host = device.get()
    host[0] = 9.0
    assert type(host) is np.ndarray
    assert device.get().tolist() == [1.0, 2.0]


def test_arithmetic_of_device_and_host_arrays_is_refused(make: FakeCupyMaker) -> None:
    fake = make()
    with pytest.raises(TypeError, match="Unsupported type"):
        _ = fake.asarray([1.0]) + np.ones(1)


def test_arithmetic_keeps_arrays_on_the_device(make: FakeCupyMaker) -> None:
    fake = make()
    result = fake.asarray([1.0, 2.0]) * 2.0 + 1.0
    assert isinstance(result, fake.ndarray)
    assert result.get().tolist() == [3.0, 5.0]


def test_numpy_functions_are_cupy_functions_on_the_current_device(make: FakeCupyMaker) -> None:
    fake = make(device_count=2)
    with fake.cuda.Device(1):
        result = fake.zeros(3, dtype=fake.float32)
    assert (result.device.id, result.dtype, result.shape) == (1, np.float32, (3,))


def test_dtypes_and_scalar_types_are_numpys(make: FakeCupyMaker) -> None:
    fake = make()
    assert (fake.float32, fake.float64, fake.dtype) == (np.float32, np.float64, np.dtype)


def test_an_array_remembers_the_device_current_at_its_creation(make: FakeCupyMaker) -> None:
    fake = make(device_count=2)
    with fake.cuda.Device(1):
        on_one = fake.asarray([1.0])
    assert on_one.device.id == 1


def test_a_device_block_restores_the_previous_device(make: FakeCupyMaker) -> None:
    fake = make(device_count=3)
    with fake.cuda.Device(1), fake.cuda.Device(2):
        assert fake.cuda.runtime.getDevice() == 2
    assert fake.cuda.runtime.getDevice() == 0


def test_a_device_out_of_range_is_a_cuda_error() -> None:
    fake = make_fake_cupy(device_count=2)
    with pytest.raises(CUDARuntimeError, match="cudaErrorInvalidDevice") as info:
        fake.cuda.runtime.setDevice(2)
    assert info.value.status == 101


def test_arithmetic_on_an_array_of_another_device_is_refused() -> None:
    fake = make_fake_cupy(device_count=2)
    with fake.cuda.Device(1):
        on_one = fake.asarray([1.0])
    with pytest.raises(ValueError, match=r"\(1\) is different from the current device \(0\)"):
        _ = on_one + 1.0


def test_asarray_copies_an_array_of_another_device_to_the_current_one(make: FakeCupyMaker) -> None:
    fake = make(device_count=2)
    on_zero = fake.asarray([1.0, 2.0])
    with fake.cuda.Device(1):
        on_one = fake.asarray(on_zero)
    assert (on_one.device.id, on_one.get().tolist()) == (1, [1.0, 2.0])


def test_asarray_of_an_array_on_the_current_device_is_that_array(make: FakeCupyMaker) -> None:
    fake = make()
    device = fake.asarray([1.0])
    assert fake.asarray(device) is device


def test_views_write_through_to_their_array(make: FakeCupyMaker) -> None:
    fake = make()
    grid = fake.zeros((2, 2))
    grid.reshape(-1)[3] = 7.0
    assert grid.get().tolist() == [[0.0, 0.0], [0.0, 7.0]]


def test_indexing_gives_0d_device_arrays(make: FakeCupyMaker) -> None:
    fake = make()
    element = fake.asarray([1.0, 2.0])[1]
    assert isinstance(element, fake.ndarray)
    assert float(element) == 2.0


def test_the_current_stream_is_the_default_until_another_is_entered(make: FakeCupyMaker) -> None:
    fake = make()
    assert fake.cuda.get_current_stream().ptr == 0
    with fake.cuda.Stream() as stream:
        assert fake.cuda.get_current_stream() is stream
        assert stream.ptr != 0
    assert fake.cuda.get_current_stream().ptr == 0


def test_the_cuda_array_interface_describes_the_array(make: FakeCupyMaker) -> None:
    # The kernels' argument checks read it for every device out= (numpy.shares_memory).
    fake = make()
    interface = fake.zeros((2, 3), dtype=fake.float32).__cuda_array_interface__
    expected = ((2, 3), np.dtype(np.float32).str, 3)
    assert (interface["shape"], interface["typestr"], interface["version"]) == expected


def test_numpy_submodules_are_not_pretended(make: FakeCupyMaker) -> None:
    fake = make()
    with pytest.raises(AttributeError, match=r"does not model cupy\.random"):
        _ = fake.random


def test_the_array_interface_names_cupys_current_stream_as_cupy_does(
    make: FakeCupyMaker,
) -> None:
    fake = make()
    array = fake.asarray([1.0])
    assert array.__cuda_array_interface__["stream"] == 1  # the legacy default stream
    with fake.cuda.Stream() as stream:
        assert array.__cuda_array_interface__["stream"] == stream.ptr


def test_a_stream_belongs_to_the_current_device_and_the_default_stream_to_none(
    make: FakeCupyMaker,
) -> None:
    fake = make(device_count=2)
    with fake.cuda.Device(1):
        assert fake.cuda.Stream().device_id == 1
        assert fake.cuda.get_current_stream().device_id == -1  # CuPy's Stream.null says -1
