// Maintained by cuda-template (copier update). Add your kernels in new files: see
// docs/compiled-extension.md.
//
// The axpy kernel's C++ interface: plain pointers and sizes, no CUDA and no Python types, so
// the bindings compile with the host compiler alone and the .cu file knows nothing of Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ext {

// A CUDA runtime error; the message starts with the error's name (cudaErrorNoDevice, ...),
// which is the diagnosis. The bindings raise it in Python as CudaError.
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// out[i] = a * x[i] + y[i] on the host. `out` may be `x` or `y` itself.
template <typename T>
void axpy_cpu(T a, const T* x, const T* y, T* out, std::size_t n) noexcept;

// The same on the current CUDA device, queued on `stream` (a cudaStream_t as an integer; 0 is
// the legacy default stream). Returns once the kernel is queued; throws CudaError.
template <typename T>
void axpy_cuda(T a, const T* x, const T* y, T* out, std::size_t n, std::uintptr_t stream);

// The number of CUDA devices; throws CudaError without a driver or a device.
int cuda_device_count();

// Why the axpy kernel cannot run on CUDA device `device`: the CUDA error's name and text
// (cudaErrorNoKernelImageForDevice on a GPU the build has no code for,
// cudaErrorInsufficientDriver on a driver older than the runtime), or "" when it can. Asks
// the runtime without launching anything; the current device is left as it was.
std::string kernel_problem(int device);

// Whether this module has called into its CUDA runtime yet. From then on the process holds a
// CUDA context (or tried to make one), which a forked child cannot use.
bool cuda_started() noexcept;

// The CUDA runtime version linked in (CUDART_VERSION: 13020 for 13.2).
int cuda_runtime_version() noexcept;

}  // namespace ext
