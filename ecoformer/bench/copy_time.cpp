// Copy timing of copy_time.hpp: host memcpy, or a device-to-device cudaMemcpy when built with CUDA.
#include "copy_time.hpp"

#include <cstring>
#include <vector>

#include "ecosim/ops_counter/error.hpp"

#if ECOSIM_HAS_CUDA
#include "ecosim/kernels/cuda_support.cuh"
#endif

namespace ecosim::bench {

namespace {
#if ECOSIM_HAS_CUDA
timing::Stats device_copy(std::uint64_t bytes, const timing::Plan& plan) {
  const cuda::DeviceBuffer<char> source(bytes), target(bytes);
  cuda::check(cudaMemset(source.get(), 1, bytes), "cudaMemset");
  return cuda::time_stats(plan, [&] {
    cuda::check(cudaMemcpyAsync(target.get(), source.get(), bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
  });
}
#endif

timing::Stats host_copy(std::uint64_t bytes, const timing::Plan& plan) {
  std::vector<char> source(bytes, 1), target(bytes);
  std::memcpy(target.data(), source.data(), bytes);  // touches the pages before any timed copy
  const timing::Stats stats = timing::measure(plan, timing::kSteadyClock, [&] {
    return timing::steady_ms([&] { std::memcpy(target.data(), source.data(), bytes); });
  });
  if (target[bytes / 2] != 1) throw Error("host copy check failed");  // keeps the copy observable
  return stats;
}
}  // namespace

timing::Stats copy_time(std::uint64_t bytes, ecoformer::Device device, const timing::Plan& plan) {
#if ECOSIM_HAS_CUDA
  if (device == ecoformer::Device::cuda) return device_copy(bytes, plan);
#endif
  if (device == ecoformer::Device::cuda) throw Error("built without CUDA: no device copy");
  return host_copy(bytes, plan);
}

}  // namespace ecosim::bench
