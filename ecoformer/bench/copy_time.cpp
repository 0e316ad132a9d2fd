// Copy timing of copy_time.hpp: host memcpy, or a device-to-device cudaMemcpy when built with CUDA.
#include "copy_time.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <vector>

#include "ecosim/ops_counter/error.hpp"

#if ECOSIM_HAS_CUDA
#include "ecosim/kernels/cuda_support.cuh"
#endif

namespace ecosim::bench {

namespace {
#if ECOSIM_HAS_CUDA
double device_copy_ms(std::uint64_t bytes, int repeats) {
  const cuda::DeviceBuffer<char> source(bytes), target(bytes);
  cuda::check(cudaMemset(source.get(), 1, bytes), "cudaMemset");
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r <= repeats; ++r) {  // the first copy warms up
    cuda::EventTimer timer;
    cuda::check(cudaMemcpy(target.get(), source.get(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy");
    const double ms = timer.stop_ms();
    if (r > 0) best = std::min(best, ms);
  }
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
