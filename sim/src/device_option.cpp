// Resolution of --device.
#include "device_option.hpp"

#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

DeviceChoice resolve_device(const std::string& option) {
  if (option == "cpu") return DeviceChoice::cpu;
  if (option != "auto" && option != "cuda") throw Error("--device must be auto, cpu or cuda, not '" + option + "'");
  const gpu::Availability gpu = gpu::probe();
  if (gpu.available) return DeviceChoice::cuda;
  if (option == "cuda") throw gpu::unavailable("--device cuda", gpu);
  return DeviceChoice::cpu;
}

}  // namespace ecosim::cli
