// Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
// The 5-point Laplacian of a 2-D grid in CUDA C, shared by every route that compiles CUDA C at
// run time: CuPy's RawModule, cuda.core's Program (both through NVRTC, no CUDA toolkit needed)
// and PyCUDA's SourceModule (through nvcc). It ships inside the package as package data.
//
//   out[i][j] = u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - 4 u[i][j]   inside the grid,
//   out[i][j] = 0                                                          on its edges.
//
// Launch with 2-D blocks of 16 x 16 threads, x along columns: the 32 threads of a warp then read
// 32 neighbouring elements of a row in one memory transaction. Neighbouring rows are served by
// the L1/L2 caches, so a shared-memory tile gains little for a 5-point stencil on current GPUs.
// The grid's y may be smaller than the rows need (it is capped at 65,535): each thread loops over
// rows with a grid stride.

#include "grid_helpers.cuh"

template <typename T>
__device__ void laplacian_5pt(const T* __restrict__ u, T* __restrict__ out, long long rows,
                              long long cols) {
    const long long col = grid_col();
    if (col >= cols) {
        return;  // the last blocks overhang the grid
    }
    for (long long row = grid_first_row(); row < rows; row += grid_row_stride()) {
        const size_t i = flat_index(row, col, cols);
        if (row == 0 || col == 0 || row == rows - 1 || col == cols - 1) {
            out[i] = T(0);
        } else {
            out[i] = (u[i - cols] + u[i + cols]) + (u[i - 1] + u[i + 1]) - T(4) * u[i];
        }
    }
}

// extern "C" keeps the names unmangled, so every loader finds them by these plain names. The sizes
// are 64-bit (launch with int64 scalars): a grid of one row may have more than 2^31 - 1 columns.
extern "C" __global__ void laplacian_5pt_f32(const float* u, float* out, long long rows,
                                             long long cols) {
    laplacian_5pt(u, out, rows, cols);
}

extern "C" __global__ void laplacian_5pt_f64(const double* u, double* out, long long rows,
                                             long long cols) {
    laplacian_5pt(u, out, rows, cols);
}
