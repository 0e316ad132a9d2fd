// CUDA builds only (host code on the CUDA runtime, included by .cu sources and CUDA-only benchmarks): the one
// GPU support layer of every module's kernels (kernels/ and ecoformer/) — the error check that turns a CUDA
// failure into ecosim::Error, launch checks, grid sizing, the owning device buffer and CUDA-event timing. The
// device probe and no-GPU check are in gpu.hpp (every build), Philox in philox.hpp (shared with the CPU).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/kernels/timing.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cuda {

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

/// Checks that the last launch was accepted (bad configuration, missing kernel image, ...) without waiting
/// for it, so that timed sequences of kernels stay back to back.
inline void check_launch(const char* what) { check(cudaGetLastError(), what); }

/// check_launch, then waits for the device and checks that the kernels ran.
inline void synchronize(const char* what) {
  check_launch(what);
  check(cudaDeviceSynchronize(), what);
}

/// Grid dimensions y and z are limited to 65535 blocks.
inline constexpr std::uint64_t kMaxGridYZ = 65535;

/// Grid dimension x holds at most 2³¹ − 1 blocks.
inline constexpr std::uint64_t kMaxGridX = 0x7fffffff;

/// `blocks` (at least one) as grid dimension x; ecosim::Error naming `what` when they exceed its limit.
inline unsigned grid_x(std::uint64_t blocks, const std::string& what) {
  if (blocks > kMaxGridX)
    throw Error(what + ": " + std::to_string(blocks) + " blocks exceed one launch's grid (at most " +
                std::to_string(kMaxGridX) + ")");
  return static_cast<unsigned>(std::max<std::uint64_t>(blocks, 1));
}

/// Blocks of `threads` threads for `count` threads (at least one block); ecosim::Error naming `what` when
/// they exceed the 1-D grid limit.
inline unsigned blocks_for(std::uint64_t count, unsigned threads, const char* what = "CUDA launch") {
  return grid_x(count / threads + (count % threads != 0), std::string(what) + " (" + std::to_string(count) +
                                                              " threads in blocks of " + std::to_string(threads) + ")");
}

/// Device memory for `count` values of T, freed on destruction; uploads and downloads are checked.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::uint64_t count) : count_(count) {
    if (count > 0) check(cudaMalloc(&data_, count * sizeof(T)), "cudaMalloc");
  }
  DeviceBuffer(const T* host, std::uint64_t count) : DeviceBuffer(count) { upload(host); }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.data(), host.size()) {}
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T* get() const { return data_; }
  void upload(const T* host) {
    if (count_ > 0) check(cudaMemcpy(data_, host, count_ * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) check(cudaMemcpy(host.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return host;
  }

 private:
  T* data_ = nullptr;
  std::uint64_t count_;
};

/// Elapsed time between construction and stop_ms() on the default stream, in milliseconds.
class EventTimer {
 public:
  EventTimer() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
    check(cudaEventRecord(start_), "cudaEventRecord");
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  /// Waits for the kernels launched since construction and returns their time; throws on a failed kernel.
  double stop_ms() {
    check(cudaEventRecord(stop_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "kernel execution");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

/// The timing plan's runs of `launch()`, each timed alone by CUDA events around its kernels (timing.hpp).
template <class Launch>
timing::Stats time_stats(const timing::Plan& plan, Launch launch) {
  return timing::measure(plan, timing::kCudaEvents, [&] {
    EventTimer timer;
    launch();
    check_launch("timed launch");
    return timer.stop_ms();
  });
}

}  // namespace ecosim::cuda
