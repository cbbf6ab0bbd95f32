// Maintained by cuda-template (copier update). Add your bindings in new files: see
// docs/compiled-extension.md.
//
// The Python module _cuda_cpp, made with nanobind. nb::ndarray takes NumPy arrays on the host
// and CuPy (or any DLPack) arrays on the device without a copy; `noconvert` makes a wrong
// dtype, layout or device a TypeError instead of a silent copy (a copy of `out` would take
// the result away from the caller). The Python wrapper (kernels/cuda_cpp.py) checks the
// arguments first, so these errors mean a call that bypassed it.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cstdint>

#include "axpy.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

template <typename T, typename Device>
using Vector = nb::ndarray<T, nb::ndim<1>, nb::c_contig, Device>;

template <typename T>
void axpy_host(T a, Vector<const T, nb::device::cpu> x, Vector<const T, nb::device::cpu> y,
               Vector<T, nb::device::cpu> out) {
  nb::gil_scoped_release release;
  ext::axpy_cpu(a, x.data(), y.data(), out.data(), x.shape(0));
}

template <typename T>
void axpy_device(T a, Vector<const T, nb::device::cuda> x, Vector<const T, nb::device::cuda> y,
                 Vector<T, nb::device::cuda> out, std::uintptr_t stream) {
  nb::gil_scoped_release release;
  ext::axpy_cuda(a, x.data(), y.data(), out.data(), x.shape(0), stream);
}

template <typename T>
void define(nb::module_& m) {
  m.def("axpy_cpu", &axpy_host<T>, "a"_a, "x"_a.noconvert(), "y"_a.noconvert(),
        "out"_a.noconvert(), "out[i] = a * x[i] + y[i] on the host (1-D, C-contiguous).");
  m.def("axpy_cuda", &axpy_device<T>, "a"_a, "x"_a.noconvert(), "y"_a.noconvert(),
        "out"_a.noconvert(), "stream"_a,
        "out[i] = a * x[i] + y[i] on the current device, queued on `stream`.");
}

}  // namespace

NB_MODULE(_cuda_cpp, m) {
  m.doc() = "axpy compiled ahead of time: a CUDA kernel and its C++ CPU twin.";
  nb::exception<ext::CudaError>(m, "CudaError", PyExc_RuntimeError);
  define<float>(m);
  define<double>(m);
  m.def("cuda_device_count", &ext::cuda_device_count,
        "The number of CUDA devices; CudaError without a driver or a device.");
  m.attr("CUDA_RUNTIME_VERSION") = ext::cuda_runtime_version();
  m.attr("CUDA_COMPILER_VERSION") = CUDA_COMPILER_VERSION;
  m.attr("CUDA_ARCHITECTURES") = CUDA_ARCHITECTURES;
}
