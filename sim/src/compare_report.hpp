// Internal: the result table of `ecosim compare` — per attention variant the op counts, op-table energy,
// accelerator cycles/latency/energy (with breakdown), GPU latency (measured or estimated), ratios to MSA
// beside the published ratios — rendered as a terminal table, CSV and JSON.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/result.hpp"
#include "ecosim/kernels/timing.hpp"

namespace ecosim::cli {

/// How a variant's kernel was timed: where it ran ("cpu" or "cuda (<GPU name>)") and the statistics.
struct KernelTiming {
  std::string device;
  timing::Stats stats;
};

struct CompareRow {
  std::string variant;
  std::string source;  // how the trace was obtained: "kernel (cpu)", "kernel (cuda)" or "analytic"
  std::uint64_t muls = 0, adds = 0;
  double op_energy_pj = 0;  // op counts × the 45 nm technology table
  accel::OpRow accel;       // accelerator totals (cycles, energy breakdown)
  double accel_latency_ms = 0;
  double gpu_latency_ms = 0;
  bool gpu_measured = false;
  std::string gpu_label;                      // "measured (NVIDIA H100 ...)" or "est. H100 SXM roofline"
  std::optional<KernelTiming> kernel_timing;  // none for a count-only variant or a whole model
};

struct CompareReport {
  nlohmann::json workload;
  nlohmann::json published;           // sim/data/published_accelerator.json when `workload` is the one it was published
                                      // for, else null (published figures are shown for that workload only)
  nlohmann::ordered_json provenance;  // provenance.hpp
  accel::AreaBreakdown accel_area;    // the accelerator's silicon area (the same for every variant)
  std::vector<CompareRow> rows;
};

/// The published figures if `workload` (one layer: batch, seq, dim, heads) is the one they were measured on.
nlohmann::json published_for(const nlohmann::json& workload, const nlohmann::json& published);

std::string render_table(const CompareReport& report);
std::string render_csv(const CompareReport& report);
/// {"workload", "provenance", "published_source" (null without published figures), "accel_area_mm2" (array,
///  each buffer, total), "variants": [{"name", "accel_latency_ms", "accel_energy_pj", "gpu_latency_ms",
///  "gpu_latency_kind", "kernel_timing" (null, or {"device", "method", "warmup", "repetitions", "median_ms",
///  "q1_ms", "q3_ms", "min_ms", "max_ms"}), "muls", "adds", ...}]}
nlohmann::json to_json(const CompareReport& report);

}  // namespace ecosim::cli
