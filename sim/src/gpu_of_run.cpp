// The built-in GPU file of the GPU a command ran on (gpu_of_run.hpp).
#include "gpu_of_run.hpp"

#include "ecosim/accel_model/gpu/gpu_spec.hpp"

namespace ecosim::cli {

std::optional<std::string> gpu_of_run(const boost::program_options::variables_map& vm, const std::string& device_name) {
  if (!vm["gpu"].defaulted() || device_name.empty()) return std::nullopt;
  return gpu::builtin_gpu_of_device(device_name);
}

}  // namespace ecosim::cli
