// Copy timing of copy_time.hpp: host memcpy, or a device-to-device cudaMemcpy when built with CUDA.
#include "copy_time.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <vector>

#include "ecosim/ops_counter/error.hpp"

#if ECOSIM_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace ecosim::bench {

namespace {
#if ECOSIM_HAS_CUDA
void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

double device_copy_ms(std::uint64_t bytes, int repeats) {
  void *source = nullptr, *target = nullptr;
  check(cudaMalloc(&source, bytes), "cudaMalloc");
  check(cudaMalloc(&target, bytes), "cudaMalloc");
  check(cudaMemset(source, 1, bytes), "cudaMemset");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r <= repeats; ++r) {  // the first copy warms up
    check(cudaEventRecord(start), "cudaEventRecord");
    check(cudaMemcpy(target, source, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (r > 0) best = std::min(best, double{ms});
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(source);
  cudaFree(target);
  return best;
}
#endif

double host_copy_ms(std::uint64_t bytes, int repeats) {
  std::vector<char> source(bytes, 1), target(bytes);
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r <= repeats; ++r) {  // the first copy touches the pages
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(target.data(), source.data(), bytes);
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
    if (r > 0) best = std::min(best, elapsed.count());
  }
  if (target[bytes / 2] != 1) throw Error("host copy check failed");  // keeps the copy observable
  return best;
}
}  // namespace

double copy_time_ms(std::uint64_t bytes, ecoformer::Device device, int repeats) {
#if ECOSIM_HAS_CUDA
  if (device == ecoformer::Device::cuda) return device_copy_ms(bytes, repeats);
#endif
  if (device == ecoformer::Device::cuda) throw Error("built without CUDA: no device copy");
  return host_copy_ms(bytes, repeats);
}

}  // namespace ecosim::bench
