// GPU probe through the CUDA runtime when built with CUDA; otherwise it reports the build as the reason. The
// no-GPU error of every CUDA entry point.
#include "ecosim/kernels/gpu.hpp"

#if ECOSIM_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace ecosim::gpu {

bool built_with_cuda() { return ECOSIM_HAS_CUDA != 0; }

Availability probe() {
#if ECOSIM_HAS_CUDA
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return {false, "", std::string("CUDA runtime: ") + cudaGetErrorString(err)};
  if (count == 0) return {false, "", "no CUDA device"};
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return {false, "", "cannot query CUDA device 0"};
  return {true, prop.name, ""};
#else
  return {false, "", "built without CUDA (ECOSIM_CUDA=OFF, or no nvcc at configure time)"};
#endif
}

Error unavailable(std::string_view what, const Availability& a) {
  return Error(std::string(what) + ": no GPU (" + a.reason + ")");
}

void require(std::string_view what) {
  const Availability a = probe();
  if (!a.available) throw unavailable(what, a);
}

}  // namespace ecosim::gpu
