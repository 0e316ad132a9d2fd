// Internal: roofline estimate of GPU latency for a list of operations, from the peak rates of a named GPU
// (sim/data/gpu_roofline.json), used by `compare` when no GPU is present. Always labelled as an estimate.
#pragma once
#include <string>
#include <vector>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::cli {

struct GpuRoofline {
  std::string gpu;  // e.g. "H100 SXM"
  double ops_per_s = 0, bytes_per_s = 0;
};

/// The peak rates of `gpu` (empty: the file's default); throws ecosim::Error naming the known GPUs.
GpuRoofline gpu_roofline(const std::string& gpu);

/// Σ over ops of max(ops / peak fp32 rate, bytes / memory bandwidth), in ms.
double estimate_gpu_latency_ms(const std::vector<OpRecord>& ops, const GpuRoofline& roofline);

}  // namespace ecosim::cli
