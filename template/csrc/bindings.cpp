// Maintained by cuda-template (copier update). Add your bindings in new files: see
// docs/compiled-extension.md.
//
// The Python module _cuda_cpp, made with nanobind. nb::ndarray takes NumPy arrays on the host
// and CuPy (or any DLPack) arrays on the device without a copy, and nothing is ever converted:
// a copy of `out` would take the result away from the caller. Each argument is checked here
// before any kernel runs: a wrong dtype, rank, layout or memory kind is a TypeError, arrays of
// different lengths or devices a ValueError, each naming the argument. The Python wrapper
// (kernels/cuda_cpp.py) checks the arguments first, so these errors mean a call that bypassed
// it; they are here so that such a call fails instead of reading past the end of an array.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "axpy.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// Read-only inputs and a writable output, of any dtype, rank and memory until checked.
using Input = nb::ndarray<nb::ro>;
using Output = nb::ndarray<>;

// DLPack's device types for memory the CUDA kernel can address: device memory, and managed
// memory (cudaMallocManaged, CuPy's malloc_managed), which the same pointer reaches.
constexpr std::int32_t kCuda = nb::device::cuda::value;
constexpr std::int32_t kCudaManaged = nb::device::cuda_managed::value;
constexpr std::int32_t kCpu = nb::device::cpu::value;

std::string memory_of(std::int32_t device_type) {
  switch (device_type) {
    case kCpu:
      return "host memory";
    case kCuda:
      return "CUDA device memory";
    case kCudaManaged:
      return "CUDA managed memory";
    default:
      return "memory of DLPack device type " + std::to_string(device_type);
  }
}

// DLPack numbers CUDA's legacy default stream 1 (0 is reserved); any other value is a
// cudaStream_t, 2 being the per-thread default stream.
std::uintptr_t dlpack_stream(std::uintptr_t stream) { return stream == 0 ? 1 : stream; }

// Take a device array through DLPack, naming the stream the kernel will run on. The producer
// (CuPy) then orders its pending work on its current stream before that one, and does nothing
// when they are the same stream; nanobind's own import passes no stream, which DLPack reads as
// the legacy default stream: an event and a wait on every call, serialising the caller's stream
// with every other.
template <typename Array>
Array from_device(nb::handle array, const char* name, std::uintptr_t stream) {
  if (!nb::hasattr(array, "__dlpack__") || !nb::hasattr(array, "__dlpack_device__")) {
    throw nb::type_error((std::string(name) + " must be a CUDA array (a CuPy array), got " +
                          nb::inst_name(array).c_str())
                             .c_str());
  }
  // A stream means something to CUDA producers only (NumPy refuses one): the device first.
  const auto device_type = nb::cast<std::int32_t>(array.attr("__dlpack_device__")()[0]);
  if (device_type != kCuda && device_type != kCudaManaged) {
    throw nb::type_error((std::string(name) + " is in " + memory_of(device_type) +
                          "; the CUDA kernel takes CUDA device or managed memory")
                             .c_str());
  }
  nb::object export_ = array.attr("__dlpack__");
  const nb::int_ consumer_stream(dlpack_stream(stream));
  nb::object capsule;
  try {
    capsule = export_("stream"_a = consumer_stream, "max_version"_a = nb::make_tuple(1, 0));
  } catch (nb::python_error& error) {
    if (!error.matches(PyExc_TypeError)) {  // a producer older than DLPack 1.0 says TypeError
      throw;
    }
    capsule = export_("stream"_a = consumer_stream);
  }
  Array taken;
  if (!nb::try_cast(capsule, taken, /*convert=*/false)) {
    throw nb::type_error((std::string(name) +
                          " could not be taken through DLPack (a read-only array, or a "
                          "dtype DLPack cannot describe)")
                             .c_str());
  }
  return taken;
}

template <typename Array>
Array from_host(nb::handle array, const char* name) {
  Array taken;
  if (!nb::try_cast(array, taken, /*convert=*/false)) {
    const char* kind = std::is_same_v<Array, Output> ? "a writable NumPy array" : "a NumPy array";
    throw nb::type_error(
        (std::string(name) + " must be " + kind + ", got " + nb::inst_name(array).c_str())
            .c_str());
  }
  return taken;
}

// Refuse what the kernels cannot read: the dtype, the rank, the layout, the kind of memory.
template <typename T, typename Array>
void check_vector(const Array& array, const char* name, bool device) {
  const std::string which(name);
  const bool addressable = device ? array.device_type() == kCuda ||
                                        array.device_type() == kCudaManaged
                                  : array.device_type() == kCpu;
  if (!addressable) {
    throw nb::type_error((which + " is in " + memory_of(array.device_type()) + "; " +
                          (device ? "the CUDA kernel takes CUDA device or managed memory"
                                  : "the CPU loop takes host memory"))
                             .c_str());
  }
  if (array.dtype() != nb::dtype<T>()) {
    throw nb::type_error(
        (which + " must have the dtype of the others (float" + std::to_string(8 * sizeof(T)) +
         ")")
            .c_str());
  }
  if (array.ndim() != 1) {
    throw nb::type_error((which + " must be 1-D, got " + std::to_string(array.ndim()) +
                          " dimensions")
                             .c_str());
  }
  if (array.shape(0) > 1 && array.stride(0) != 1) {
    throw nb::type_error((which + " must be contiguous, got a stride of " +
                          std::to_string(array.stride(0)) + " elements")
                             .c_str());
  }
}

// Refuse arrays the kernels would read past the end of, or that live on different devices.
void check_together(const Input& x, const Input& y, const Output& out) {
  const std::size_t n = x.shape(0);
  for (const auto& [name, length] : {std::pair{"y", y.shape(0)}, std::pair{"out", out.shape(0)}}) {
    if (length != n) {
      throw nb::value_error((std::string(name) + " has " + std::to_string(length) +
                             " elements and x has " + std::to_string(n) +
                             ": axpy takes arrays of one length")
                                .c_str());
    }
  }
  if (y.device_id() != x.device_id() || out.device_id() != x.device_id()) {
    throw nb::value_error("x, y and out must be on one device");
  }
}

template <typename T>
void run(double a, const Input& x, const Input& y, const Output& out, bool device,
         std::uintptr_t stream) {
  check_vector<T>(x, "x", device);
  check_vector<T>(y, "y", device);
  check_vector<T>(out, "out", device);
  check_together(x, y, out);
  const auto* x_data = static_cast<const T*>(x.data());
  const auto* y_data = static_cast<const T*>(y.data());
  auto* out_data = static_cast<T*>(out.data());
  const std::size_t n = x.shape(0);
  nb::gil_scoped_release release;
  if (device) {
    ext::axpy_cuda(static_cast<T>(a), x_data, y_data, out_data, n, stream);
  } else {
    ext::axpy_cpu(static_cast<T>(a), x_data, y_data, out_data, n);
  }
}

// x's dtype picks the kernel; the others must match it (check_vector).
void dispatch(double a, const Input& x, const Input& y, const Output& out, bool device,
              std::uintptr_t stream) {
  if (x.dtype() == nb::dtype<float>()) {
    run<float>(a, x, y, out, device, stream);
  } else if (x.dtype() == nb::dtype<double>()) {
    run<double>(a, x, y, out, device, stream);
  } else {
    throw nb::type_error("x must be a float32 or float64 array");
  }
}

// Each argument is taken in turn (the order of a call's arguments is unspecified in C++), so
// the first bad one is the one named.
void axpy_host(double a, nb::handle x, nb::handle y, nb::handle out) {
  const Input x_array = from_host<Input>(x, "x");
  const Input y_array = from_host<Input>(y, "y");
  const Output out_array = from_host<Output>(out, "out");
  dispatch(a, x_array, y_array, out_array, false, 0);
}

void axpy_device(double a, nb::handle x, nb::handle y, nb::handle out, std::uintptr_t stream) {
  const Input x_array = from_device<Input>(x, "x", stream);
  const Input y_array = from_device<Input>(y, "y", stream);
  const Output out_array = from_device<Output>(out, "out", stream);
  dispatch(a, x_array, y_array, out_array, true, stream);
}

}  // namespace

NB_MODULE(_cuda_cpp, m) {
  m.doc() = "axpy compiled ahead of time: a CUDA kernel and its C++ CPU twin.";
  nb::exception<ext::CudaError>(m, "CudaError", PyExc_RuntimeError);
  // .none(): None reaches the checks, which name the argument, instead of nanobind's overload
  // error.
  m.def("axpy_cpu", &axpy_host, "a"_a, "x"_a.none(), "y"_a.none(), "out"_a.none(),
        "out[i] = a * x[i] + y[i] on the host (1-D, C-contiguous NumPy arrays of one dtype).");
  m.def("axpy_cuda", &axpy_device, "a"_a, "x"_a.none(), "y"_a.none(), "out"_a.none(), "stream"_a,
        "out[i] = a * x[i] + y[i] on the current device, queued on `stream` (a cudaStream_t as "
        "an integer, 0 for the legacy default stream), which the arrays' DLPack export is told.");
  m.def("cuda_device_count", &ext::cuda_device_count,
        "The number of CUDA devices; CudaError without a driver or a device.");
  m.def("kernel_problem", &ext::kernel_problem, "device"_a,
        "Why the kernel cannot run on CUDA device `device` (the CUDA error), or '' when it can.");
  m.def("cuda_started", &ext::cuda_started,
        "Whether this module has called into its CUDA runtime yet.");
  m.attr("CUDA_RUNTIME_VERSION") = ext::cuda_runtime_version();
  m.attr("CUDA_COMPILER_VERSION") = CUDA_COMPILER_VERSION;
  m.attr("CUDA_ARCHITECTURES") = CUDA_ARCHITECTURES;
}
