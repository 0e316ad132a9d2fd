// Internal: the design-space sweep's specification (format: README.md, "Design-space sweep") — axes over
// accelerator-configuration keys by dotted path, workloads (zoo models, ONNX models, attention layers), attention
// variants with their parameters, the engine and the constraints — parsed strictly, and the points it spans.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"

namespace ecosim::cli {

/// Limits that keep a spec's plan in memory (each configuration is built before any point runs) and its
/// counts far from overflow; a spec above them is an error.
inline constexpr std::size_t kMaxSweepConfigurations = 1'000'000;
inline constexpr std::size_t kMaxSweepPoints = 100'000'000;

/// One accelerator key ("array.rows") and the values it takes, in the spec's order.
struct SweepAxis {
  std::string key;
  std::vector<nlohmann::json> values;
};

/// A zoo model at a batch size, an ONNX model (its attention blocks swapped for each variant), or one attention
/// layer (model and onnx empty).
struct SweepWorkload {
  std::string model;
  std::uint64_t batch = 1, seq = 0, dim = 0, heads = 0;  // seq, dim, heads: the layer only
  std::string onnx;                                      // the ONNX file, imported when the spec is read
  std::shared_ptr<const OnnxModel> onnx_model;
  std::shared_ptr<const ModelZoo> zoo;  // a Hugging Face config's decoder (`model` its name); null: the built-in zoo
  std::string hf_config;                // that config's file
  std::string label() const;  // "pvt_v2_b0 b1", "layer b16 n3136 d32 h1", "onnx models/a.onnx" (the path as given)
};

/// A variant with one value of each of its parameters.
struct SweepVariant {
  AttentionConfig parameters;         // variant and parameters; shapes come from the workload
  std::string given;                  // the parameters the spec set: "bits=8 support=25" (empty: all defaults)
  bool sliding_window_given = false;  // else a zoo decoder's own window (take_model_window)
};

struct SweepSpec {
  nlohmann::json document;                     // as read (reports record it)
  std::string accelerator = "bitfusion-45nm";  // the built-in configuration the axes override
  std::vector<SweepAxis> axes;                 // sorted by key
  std::vector<SweepWorkload> workloads;
  std::vector<SweepVariant> variants;
  accel::Engine engine = accel::Engine::closed_form;
  std::optional<double> min_area_mm2, max_area_mm2;

  /// Accelerator configurations spanned by the axes (their product; 1 without axes).
  std::size_t configurations() const;
  /// Every point: workloads × variants × configurations, configurations innermost.
  std::size_t points() const { return workloads.size() * variants.size() * configurations(); }
  /// Configuration `index` as an override document ({"array": {"rows": 16}, ...}); the last axis varies fastest.
  nlohmann::json overrides(std::size_t index) const;
  /// Its axis values, in axis order, as the spec gives them.
  std::vector<nlohmann::json> axis_points(std::size_t index) const;
  /// Its axis values, in axis order, as CSV text.
  std::vector<std::string> axis_values(std::size_t index) const;
};

/// Parses a spec; throws ecosim::Error naming `origin` and the offending key for an unknown key, an empty
/// list, a value of the wrong type or range, an unknown model or variant, or contradictory constraints.
SweepSpec parse_sweep_spec(std::string_view json_text, const std::string& origin);
/// The built-in spec (sim/data/default_sweep.json).
SweepSpec default_sweep_spec();

}  // namespace ecosim::cli
