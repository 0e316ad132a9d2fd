// Internal (CUDA sources only): error checks that raise ecosim::Error, an owning device buffer, CUDA-event
// timing of kernels, launch-size limits, and the strided batched GEMM the baseline kernels share.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::ecoformer::cuda {

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

/// Checks that the last launch was accepted (bad configuration, missing kernel image, ...).
inline void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

/// Grid dimensions y and z are limited to 65535 blocks.
inline constexpr std::uint64_t kMaxGridYZ = 65535;

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::uint64_t count) : count_(count) {
    if (count_ > 0) check(cudaMalloc(&data_, count_ * sizeof(T)), "cudaMalloc");
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) {
    if (count_ > 0) check(cudaMemcpy(data_, host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) check(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }

 private:
  T* data_ = nullptr;
  std::uint64_t count_;
};

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
