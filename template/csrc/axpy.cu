// Maintained by cuda-template (copier update). Add your kernels in new files: see
// docs/compiled-extension.md.
//
// axpy on the GPU, compiled ahead of time by nvcc: SASS for each architecture in
// CMakeLists.txt and PTX of the newest, so the first call compiles nothing.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <string>

#include "axpy.hpp"

namespace ext {
namespace {

constexpr int kThreadsPerBlock = 256;
// Enough blocks to fill every SM several times over; the grid-stride loop covers the rest.
constexpr int kBlocksPerSm = 32;

// Set before the first call into the CUDA runtime, never cleared (cuda_started()).
std::atomic<bool> started{false};

std::string describe(cudaError_t status) {
  return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    // The runtime also keeps the error as its "last error"; left there, the next launch's
    // cudaGetLastError() would report it again for a launch that went well.
    cudaGetLastError();
    throw CudaError(describe(status) + " (in " + what + ")");
  }
}

// A grid-stride loop with a 64-bit index: arrays past 2**31 elements are covered too.
template <typename T>
__global__ void axpy_kernel(T a, const T* x, const T* y, T* out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(blockDim.x) * gridDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = a * x[i] + y[i];
  }
}

}  // namespace

template <typename T>
void axpy_cuda(T a, const T* x, const T* y, T* out, std::size_t n, std::uintptr_t stream) {
  if (n == 0) {
    return;
  }
  started = true;
  int device = 0;
  int sms = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
        "cudaDeviceGetAttribute");
  const std::size_t needed = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  const auto blocks = static_cast<unsigned int>(
      std::min(needed, static_cast<std::size_t>(sms) * kBlocksPerSm));
  axpy_kernel<T><<<blocks, kThreadsPerBlock, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
      a, x, y, out, n);
  // A launch error (no kernel image for this GPU, a bad stream) shows here; an error while the
  // kernel runs shows at the caller's next synchronisation.
  check(cudaGetLastError(), "axpy_kernel launch");
}

template void axpy_cuda<float>(float, const float*, const float*, float*, std::size_t,
                               std::uintptr_t);
template void axpy_cuda<double>(double, const double*, const double*, double*, std::size_t,
                                std::uintptr_t);

int cuda_device_count() {
  started = true;
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  return count;
}

std::string kernel_problem(int device) {
  started = true;
  int current = 0;
  cudaError_t status = cudaGetDevice(&current);
  const bool switched = status == cudaSuccess && current != device;
  if (switched) {
    status = cudaSetDevice(device);
  }
  // Loads the kernel for the device (lazily loaded modules load here): a GPU that neither the
  // machine code nor the PTX fits fails now, as its launch would.
  cudaFuncAttributes attributes{};
  if (status == cudaSuccess) {
    status = cudaFuncGetAttributes(&attributes, axpy_kernel<float>);
  }
  if (switched) {
    cudaSetDevice(current);
  }
  cudaGetLastError();  // the answer is returned, not left for the next launch to find
  return status == cudaSuccess ? std::string() : describe(status);
}

bool cuda_started() noexcept { return started; }

int cuda_runtime_version() noexcept { return CUDART_VERSION; }

}  // namespace ext
