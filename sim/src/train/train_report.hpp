// Internal: the report of `ecosim train` — one entry per scheme with its activation and peak memory, the op
// counts of the step's phases and the memory curve — as JSON, CSV or an aligned table.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/training_step.hpp"

namespace ecosim::cli {

struct SchemeStep {
  std::string scheme;
  TrainingStep step;
};

/// {"workload", "parameters", "parameter_bytes", "gradient_bytes", "optimizer_state_bytes", "buffer_bytes",
///  "schemes": [{"scheme", "activation_bytes", "peak_bytes", "ops": {"forward", "backward", "update", "total"},
///  "saved_tensors", "memory_curve"}], "provenance"}.
nlohmann::ordered_json train_json(const nlohmann::ordered_json& workload, const std::vector<SchemeStep>& steps,
                                  const TechTable& tech, const nlohmann::ordered_json& provenance);
/// One row per scheme (bytes and per-phase muls/adds), headed by the provenance's "# key: value" lines.
std::string train_csv(const std::vector<SchemeStep>& steps, const nlohmann::ordered_json& provenance);
/// The memory curve of every scheme: scheme,point,phase,layer,bytes.
std::string memory_curve_csv(const std::vector<SchemeStep>& steps);
/// The aligned table: memory in GiB (2³⁰ bytes) and G ops per phase, the provenance's short form below.
std::string train_table(const nlohmann::ordered_json& workload, const std::vector<SchemeStep>& steps,
                        const nlohmann::ordered_json& provenance);

}  // namespace ecosim::cli
