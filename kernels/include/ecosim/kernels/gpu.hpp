// Whether a CUDA GPU can run ecosim's kernels here, and why not when it cannot (built without CUDA, no
// driver, no device). Tests and `ecosim validate` use this to run GPU checks or name the ones skipped; every
// CUDA entry point (kernels/ and ecoformer/) refuses to run without a GPU through require().
#pragma once
#include <string>
#include <string_view>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::gpu {

struct Availability {
  bool available = false;
  std::string device_name;  // e.g. "NVIDIA H200" when available
  std::string reason;       // why not, when unavailable
};

/// True when this build contains CUDA kernels (ECOSIM_CUDA found nvcc).
bool built_with_cuda();
Availability probe();

/// The error of a CUDA entry point `what` (a scheme, or "device cuda") when `a` is no GPU:
/// "<what>: no GPU (<reason>)".
Error unavailable(std::string_view what, const Availability& a);
/// Throws unavailable(what, probe()) unless a GPU can run the kernels.
void require(std::string_view what);

}  // namespace ecosim::gpu
