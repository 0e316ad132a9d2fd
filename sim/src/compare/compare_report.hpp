// Internal: the results of `ecosim compare` — per attention variant the op counts, op-table energy,
// accelerator cycles/latency/energy (with breakdown), GPU latency (measured or estimated), ratios to MSA
// beside the published ratios — and their report files, CSV and JSON, each with the provenance
// (the terminal's summary: compare_table.hpp).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/config.hpp"
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
  std::string source;  // how the trace was obtained: "kernel (cpu)", "kernel (cuda)", "analytic (no kernel)", ...
  std::uint64_t muls = 0, adds = 0;
  double op_energy_pj = 0;  // op counts × the 45 nm technology table
  accel::OpRow accel;       // accelerator totals (cycles, energy breakdown)
  double accel_latency_ms = 0;
  double gpu_latency_ms = 0;
  bool gpu_measured = false;
  std::string gpu_latency_kind;       // "measured", "modelled" (the GPU model) or "estimated" (--gpu-model roofline)
  std::string gpu_label;              // "measured, CUDA events (<GPU>)", "modelled, H100 SXM, ecosim's kernels ..."
  double gpu_library_latency_ms = 0;  // the library baseline: measured on the GPU that ran, else modelled
  bool gpu_library_measured = false;
  std::string gpu_library_label;          // "measured, cuBLAS ... (<GPU>)" or "modelled, H100 SXM, best library (...)"
  std::optional<double> gpu_model_error;  // measured: (modelled − measured) / measured of ecosim's kernels
  std::optional<KernelTiming> kernel_timing;           // none for a count-only variant or a whole model
  std::optional<bool> gpu_fits;                        // a decoder: its weights and KV cache or state fit the named GPU
  std::vector<std::string> gpu_op_by_op = {};          // modelled: why attention was priced op by op, not fused
  std::vector<std::string> gpu_library_op_by_op = {};  // the same for the library baseline
};

struct CompareReport {
  nlohmann::json workload;
  nlohmann::json published;        // sim/data/published_accelerator.json
  bool published_applies = false;  // `workload` is the one the figures were published for (shown for it only)
  std::vector<std::string> other_parameters = {};  // variants not at the registry's defaults (the published runs'):
                                                   // no published ratio
  nlohmann::ordered_json provenance;               // provenance.hpp
  accel::AreaBreakdown accel_area;                 // the accelerator's silicon area (the same for every variant)
  std::vector<CompareRow> rows;
};

/// Whether `workload` (one layer: batch, seq, dim, heads, accelerator) is the one the published figures were
/// measured on, and `accel` the published accelerator (its built-in configuration, however attention is mapped).
bool published_for(const nlohmann::json& workload, const accel::AccelConfig& accel, const nlohmann::json& published);

/// The workload in words: "one attention layer, batch 16, 3136 tokens, 1 head, head width 32", "whole model
/// pvt_v2_b0, batch 1" or "ONNX model <file>", then ", on <accelerator>" when it names one.
std::string describe_workload(const nlohmann::json& workload);

/// The ratio to MSA of a row's accelerator latency or energy (none without an MSA row).
std::optional<double> latency_ratio(const CompareReport& report, const CompareRow& row);
std::optional<double> energy_ratio(const CompareReport& report, const CompareRow& row);
/// The published ratio to MSA of `key` ("latency_ms" or "energy_pj"), when the figures apply and name the variant.
std::optional<double> published_ratio(const CompareReport& report, const std::string& variant, const char* key);

std::string render_csv(const CompareReport& report);
/// {"workload", "workload_description" (describe_workload), "provenance", "published_source" (null without
/// published figures), "accel_area_mm2" (array,
///  each buffer, total), "variants": [{"name", "accel_latency_ms", "accel_energy_pj", "gpu_latency_ms",
///  "gpu_latency_kind", "gpu_library_latency_ms", "gpu_library", "gpu_model_error" (of provenance
///  "gpu_model_error_of"'s model), "gpu_op_by_op" and "gpu_library_op_by_op" (why attention was priced op by op),
///  "kernel_timing" (null, or
///  {"device", "method", "warmup", "repetitions", "median_ms", "q1_ms", "q3_ms", "min_ms", "max_ms"}), "muls", "adds",
///  ...}]}
nlohmann::json to_json(const CompareReport& report);

}  // namespace ecosim::cli
