// Internal (CUDA sources only): the strided batched GEMM (16×16 shared-memory tiles) that the baseline kernels
// (Performer, Linformer, Reformer) share, on the GPU support layer of ecosim/kernels/cuda_support.cuh.
#pragma once
#include <cstdint>

namespace ecosim::ecoformer::detail {

/// A batch of matrices addressed by strides: element (b, i, j) is data[b·batch + i·row + j·col]
/// (batch = 0 shares one matrix across the batch; swapping row and col strides transposes).
struct StridedMatrix {
  const float* data;
  long long batch, row, col;
};

/// C[b] = A[b]·B[b] for b < batch, with A m×k, B k×n and C row-major m×n contiguous per batch entry.
void batched_gemm(StridedMatrix a, StridedMatrix b, float* c, std::uint64_t batch, std::uint64_t m, std::uint64_t n,
                  std::uint64_t k);

}  // namespace ecosim::ecoformer::detail
