// Maintained by cuda-template (copier update). Add your kernels in new files: see
// docs/compiled-extension.md.
//
// The CPU twin of axpy.cu: the same arithmetic in a loop the compiler vectorises.
#include "axpy.hpp"

namespace ext {

template <typename T>
void axpy_cpu(T a, const T* x, const T* y, T* out, std::size_t n) noexcept {
  // No __restrict__: `out` may be `x` or `y` (axpy(a, x, y, out=y)); each element is read
  // before it is written, so the aliasing is safe, but the compiler must not assume otherwise.
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = a * x[i] + y[i];
  }
}

template void axpy_cpu<float>(float, const float*, const float*, float*, std::size_t) noexcept;
template void axpy_cpu<double>(double, const double*, const double*, double*,
                               std::size_t) noexcept;

}  // namespace ext
