// Internal: roofline estimate of GPU latency for a list of operations, from the peak rates of a named GPU
// (sim/data/gpu_roofline.json), used by `compare` when no GPU is present. Always labelled as an estimate.
#pragma once
#include <string>
#include <vector>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::cli {

struct GpuEstimate {
  std::string gpu;  // e.g. "H100 SXM"
  double latency_ms = 0;
};

/// Σ over ops of max(ops / peak fp32 rate, bytes / memory bandwidth) on `gpu` (empty: the file's default).
GpuEstimate estimate_gpu_latency(const std::vector<OpRecord>& ops, const std::string& gpu);

}  // namespace ecosim::cli
