// What a sweep's rows were computed from, kept beside them (DIR/sweep.inputs.json) so that --resume keeps rows
// only for the same inputs: the spec as read, ecosim's version, and the CRC-32 and size of every file the spec
// names (ONNX models, Hugging Face configs) — a point's label names an ONNX file by its name alone, so a changed
// file, a file of the same name elsewhere or an edited spec key the labels do not show would otherwise keep rows
// computed from other inputs.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "sweep_spec.hpp"

namespace ecosim::cli {

/// {"ecosim_version", "spec", "files": {path: "crc32 XXXXXXXX, N bytes"}} of `spec` now.
nlohmann::json sweep_inputs(const SweepSpec& spec);

/// The file --resume checks in `dir`.
std::string sweep_inputs_path(const std::string& dir);

/// Throws ecosim::Error unless `dir`'s sweep.inputs.json records exactly `inputs` (naming what differs: the
/// version, the spec or a file), or when it is missing (rows of an older ecosim, or not a sweep's folder).
void check_sweep_inputs(const std::string& dir, const nlohmann::json& inputs);

}  // namespace ecosim::cli
