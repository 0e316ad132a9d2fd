// Internal (CUDA sources only): the shared error check and device buffer (ecosim/kernels/cuda_buffer.cuh), CUDA-event
// timing of kernels, launch-size limits, and the strided batched GEMM the baseline kernels share.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/kernels/cuda_buffer.cuh"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::ecoformer::cuda {

using ecosim::cuda::check;

/// Checks that the last launch was accepted (bad configuration, missing kernel image, ...).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

/// Grid dimensions y and z are limited to 65535 blocks.
inline constexpr std::uint64_t kMaxGridYZ = 65535;

using ecosim::cuda::DeviceBuffer;

/// Elapsed time between construction and stop() on the default stream, in milliseconds.
class EventTimer {
 public:
  EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer();
  /// Waits for the kernels and returns the time since construction; throws on a failed kernel.
  double stop_ms();

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

/// A batch of matrices addressed by strides: element (b, i, j) is data[b·batch + i·row + j·col]
/// (batch = 0 shares one matrix across the batch; swapping row and col strides transposes).
struct StridedMatrix {
  const float* data;
  long long batch, row, col;
};

/// C[b] = A[b]·B[b] for b < batch, with A m×k, B k×n and C row-major m×n contiguous per batch entry.
void batched_gemm(StridedMatrix a, StridedMatrix b, float* c, std::uint64_t batch, std::uint64_t m,
                  std::uint64_t n, std::uint64_t k);

/// Blocks needed for `count` threads of `threads` each; throws when beyond the grid's x limit.
unsigned blocks_for(std::uint64_t count, unsigned threads);

}  // namespace ecosim::ecoformer::cuda
