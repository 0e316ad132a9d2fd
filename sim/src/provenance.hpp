// Internal: how a report was made — ecosim's version, the full command line, and whatever the command adds
// (the timing engine, the effective accelerator configuration, the technology table, every variant parameter,
// fused mode, how GPU time was obtained) — recorded in every report: a "provenance" field in JSON, "# key: value"
// comment lines heading CSV, and the same lines, or their short form, as a table's footer.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/energy.hpp"

namespace ecosim::cli {

/// Remembers the process's arguments (after the program name); called once by the command dispatcher.
void set_command_line(const std::vector<std::string>& args);

/// {"ecosim_version", "command_line"}: the command line shell-quoted for reading (it is never run).
nlohmann::ordered_json provenance();
/// provenance() plus the technology table.
nlohmann::ordered_json provenance(const TechTable& tech);
/// provenance(tech) plus the timing engine and the accelerator (effective configuration, fused mode).
nlohmann::ordered_json provenance(const accel::AccelConfig& accel, accel::Engine engine, const TechTable& tech);

/// One "# key: value" line per field (values as compact JSON, strings bare).
std::string provenance_lines(const nlohmann::ordered_json& provenance);
/// A table's short footer: provenance_lines of the strings, numbers and booleans; an object by its "name"
/// (else by its key alone), with where it is recorded in full (`full_in`, e.g. "--format json or csv").
std::string provenance_footer(const nlohmann::ordered_json& provenance, std::string_view full_in);

/// The table's entries by "<op>.<dtype>", in pJ.
nlohmann::ordered_json describe(const TechTable& tech);

}  // namespace ecosim::cli
