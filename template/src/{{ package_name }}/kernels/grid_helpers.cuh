// Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
// Index helpers shared by the package's CUDA C kernels: no kernel of its own, only the arithmetic
// that every 2-D kernel would otherwise repeat. It ships as package data beside the kernels; the
// loader (_cuda_c.read_source) pastes it where a kernel file says #include "grid_helpers.cuh", so
// NVRTC (CuPy, cuda.core) and nvcc (PyCUDA) compile it without an include path. With nvcc on the
// command line, `-I src/<package>/kernels` finds it the ordinary way.
#ifndef GRID_HELPERS_CUH  // a guard, not #pragma once: pasted into a file, that one warns
#define GRID_HELPERS_CUH

// 2-D launches put x along columns (the contiguous axis), so a warp reads one stretch of a row.
__device__ __forceinline__ long long grid_col() {
    return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}

// The first row of this thread, and the step to its next one. gridDim.y is capped at 65,535 on
// every GPU, so the launch caps the grid's y and each thread walks down the rows with this
// grid stride: any number of rows is covered, whatever the grid.
__device__ __forceinline__ long long grid_first_row() {
    return static_cast<long long>(blockIdx.y) * blockDim.y + threadIdx.y;
}

__device__ __forceinline__ long long grid_row_stride() {
    return static_cast<long long>(gridDim.y) * blockDim.y;
}

// The flat index of (row, col) in a C-contiguous array, in 64 bits: rows * cols may exceed 2^31.
__device__ __forceinline__ size_t flat_index(long long row, long long col, long long cols) {
    return static_cast<size_t>(row) * static_cast<size_t>(cols) + static_cast<size_t>(col);
}

#endif  // GRID_HELPERS_CUH
