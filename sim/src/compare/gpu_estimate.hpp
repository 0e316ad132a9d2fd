// Internal: roofline estimate of GPU latency for a list of operations, from the peak rates of a named GPU
// (accel_model/data/gpus/<name>.json: FP32 CUDA-core peak, memory bandwidth; every counted operation taken as
// one fp32 operation), used by `compare` when no GPU is present. Always labelled as an estimate.
#pragma once
#include <string>
#include <vector>

#include "ecosim/accel_model/gpu/gpu_spec.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::cli {

struct GpuRoofline {
  std::string gpu;  // e.g. "H100 SXM"
  double ops_per_s = 0, bytes_per_s = 0;
};

/// The peak rates of `gpu` (its FP32 CUDA-core rate and memory bandwidth).
GpuRoofline gpu_roofline(const ecosim::gpu::GpuSpec& gpu);

/// Σ over ops of max(ops / peak fp32 rate, bytes / memory bandwidth), in ms.
double estimate_gpu_latency_ms(const std::vector<OpRecord>& ops, const GpuRoofline& roofline);

}  // namespace ecosim::cli
