// Roofline GPU latency estimate from a named GPU's description (accel_model/data/gpus/<name>.json, the one place
// GPU peaks and bandwidths are written).
#include "gpu_estimate.hpp"

#include <algorithm>

namespace ecosim::cli {

GpuRoofline gpu_roofline(const ecosim::gpu::GpuSpec& gpu) {
  return {gpu.name, gpu.cuda_core_fp32_flops_per_s, gpu.memory_bytes_per_s};
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
