// Internal: the report of `ecosim train` — one entry per activation scheme with its activation and peak memory,
// the op counts of the step's phases and of the scheme's compression passes, its stored tensors and memory curve
// — as JSON, CSV or an aligned table.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <optional>

#include "count_report.hpp"
#include "ecosim/kernels/training_schemes.hpp"
#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/training_step.hpp"
#include "train_pricing.hpp"

namespace ecosim::cli {

using kernels::schemes::SchemeStep;

/// The step's price per scheme (parallel to the schemes), or none where it is not priced (the paper convention).
using StepPrices = std::vector<std::optional<StepPrice>>;

/// {"workload", "parameters", "parameter_bytes", "gradient_bytes", "optimizer_state_bytes", "buffer_bytes",
///  "schemes": [{"scheme", "activation_bytes", "peak_bytes", "ratio_to_none",
///  "ops": {"forward", "backward", "update", "compression", "total"}, "accel_latency_ms", "accel_energy_pj",
///  "accel_dram_pj", "accel_dram_bits", "gpu_ms", "gpu_ms_kind" (priced schemes only), "saved_tensors",
///  "memory_curve"}], "provenance"}.
nlohmann::ordered_json train_json(const nlohmann::ordered_json& workload, const TrainingStep& step,
                                  const std::vector<SchemeStep>& schemes, const StepPrices& prices,
                                  const TechTable& tech, const nlohmann::ordered_json& provenance);
/// One row per scheme (bytes, ratio and per-phase muls/adds), headed by the provenance's "# key: value" lines.
std::string train_csv(const TrainingStep& step, const std::vector<SchemeStep>& schemes, const StepPrices& prices,
                      const nlohmann::ordered_json& provenance);
/// The memory curve of every scheme: scheme,point,phase,layer,bytes.
std::string memory_curve_csv(const std::vector<SchemeStep>& schemes);
/// The aligned table: memory in GiB (2³⁰ bytes), the ratio to none and G muls per phase, the provenance below.
std::string train_table(const nlohmann::ordered_json& workload, const TrainingStep& step,
                        const std::vector<SchemeStep>& schemes, const StepPrices& prices,
                        const nlohmann::ordered_json& provenance);

/// `--max-batch`: per scheme the largest batch whose step peaks within `memory_bytes`, its peak, and its ratio
/// to none's largest batch (when none is listed) — as an aligned table, CSV or JSON {"workload", "memory_bytes",
/// "schemes": [{"scheme", "max_batch", "peak_bytes", "batch_ratio_to_none"}]}. `workload` names the model and
/// optimizer (members "model", "optimizer") and the options it was built with.
std::string max_batch_report(const nlohmann::ordered_json& workload,
                             const std::vector<kernels::schemes::Scheme>& schemes,
                             const kernels::schemes::NetworkAt& network, Optimizer optimizer,
                             std::uint64_t memory_bytes, Format format);

}  // namespace ecosim::cli
