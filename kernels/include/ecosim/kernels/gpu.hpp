// Whether a CUDA GPU can run ecosim's kernels here, and why not when it cannot (built without CUDA, no
// driver, no device). Tests and `ecosim validate` use this to run GPU checks or name the ones skipped.
#pragma once
#include <string>

namespace ecosim::gpu {

struct Availability {
  bool available = false;
  std::string device_name;  // e.g. "NVIDIA H200" when available
  std::string reason;       // why not, when unavailable
};

/// True when this build contains CUDA kernels (ECOSIM_CUDA found nvcc).
bool built_with_cuda();
Availability probe();

}  // namespace ecosim::gpu
