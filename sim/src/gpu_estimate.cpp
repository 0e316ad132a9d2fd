// Roofline GPU latency estimate from a named GPU's description (accel_model/data/gpus/<name>.json, the one place
// GPU peaks and bandwidths are written).
#include "gpu_estimate.hpp"

#include <algorithm>

#include "ecosim/accel_model/gpu/gpu_spec.hpp"

namespace ecosim::cli {

namespace {
constexpr const char* kDefaultGpu = "h100-sxm";
}  // namespace

GpuRoofline gpu_roofline(const std::string& gpu) {
  const std::string wanted = gpu.empty() ? kDefaultGpu : gpu;
  for (const std::string& name : ecosim::gpu::builtin_gpu_names()) {  // its display name ("H100 SXM") too
    const ecosim::gpu::GpuSpec g = ecosim::gpu::builtin_gpu(name);
    if (g.name == wanted) return {g.name, g.cuda_core_fp32_flops_per_s, g.memory_bytes_per_s};
  }
  const ecosim::gpu::GpuSpec g = ecosim::gpu::builtin_gpu(wanted);  // throws naming the known GPUs
  return {g.name, g.cuda_core_fp32_flops_per_s, g.memory_bytes_per_s};
}

double estimate_gpu_latency_ms(const std::vector<OpRecord>& ops, const GpuRoofline& roofline) {
  double seconds = 0;
  for (const OpRecord& op : ops) {
    double count = 0;
    for (OpKind k : kAllOpKinds) count += double(op.counts.ops(k));
    const double bytes = double(op.counts.read_bytes()) + double(op.counts.written_bytes());
    seconds += std::max(count / roofline.ops_per_s, bytes / roofline.bytes_per_s);
  }
  return seconds * 1e3;
}

}  // namespace ecosim::cli
