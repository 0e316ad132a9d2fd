// GPU probe through the CUDA runtime when built with CUDA (a machine without a driver or a device is named as
// such, the runtime's error text kept as detail); otherwise it reports the build as the reason. The no-GPU
// error of every CUDA entry point.
#include "ecosim/kernels/gpu.hpp"

#if ECOSIM_HAS_CUDA
#include <cuda_runtime.h>
#endif

namespace ecosim::gpu {

bool built_with_cuda() { return ECOSIM_HAS_CUDA != 0; }

#if ECOSIM_HAS_CUDA
namespace {

/// Why cudaGetDeviceCount failed with `err`, in words a person without a GPU recognises; the runtime's own
/// text follows as detail.
std::string failure_reason(cudaError_t err) {
  const std::string detail = std::string("; CUDA runtime: ") + cudaGetErrorString(err);
  int driver_version = 0;  // 0: no driver installed (cudaDriverGetVersion)
  const bool driver = cudaDriverGetVersion(&driver_version) == cudaSuccess && driver_version > 0;
  if (err == cudaErrorInsufficientDriver && !driver) return "no NVIDIA driver found" + detail;
  if (err == cudaErrorNoDevice) return "no CUDA device found" + detail;
  if (err == cudaErrorInsufficientDriver) {
    int runtime_version = 0;
    cudaRuntimeGetVersion(&runtime_version);
    const auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
    return "the NVIDIA driver supports CUDA " + version(driver_version) + ", older than this build's runtime " +
           version(runtime_version) + detail;
  }
  return "the CUDA runtime cannot list the devices" + detail;
}

}  // namespace
#endif

Availability probe() {
#if ECOSIM_HAS_CUDA
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return {false, "", failure_reason(err)};
  if (count == 0) return {false, "", "no CUDA device found"};
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
