// Parsing of sweep specs: every key checked, every list non-empty, every accelerator value tried on the base
// configuration, variant parameters checked against the registry, before any point runs.
#include "sweep_spec.hpp"
#include "variant_parameters.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <span>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hf_config.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "embedded_texts.hpp"

namespace ecosim::cli {

using nlohmann::json;

namespace {

/// Throws "<path>.<key>: unknown key …" for a key of the object at `path` ("" for the spec) outside `known`.
void check_keys(const json& object, std::initializer_list<std::string_view> known, const std::string& path) {
  if (!object.is_object()) throw Error((path.empty() ? "the spec" : path) + " must be an object");
  for (const auto& [key, value] : object.items())
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw Error(fmt::format("{}: {}", child_path(path, key),
                              unknown_key_problem(key, std::span<const std::string_view>(known.begin(), known.end()))));
}

/// A scalar or a non-empty list of scalars, as a list.
std::vector<json> value_list(const json& value, const std::string& where, bool objects = false) {
  std::vector<json> list = value.is_array() ? std::vector<json>(value.begin(), value.end()) : std::vector<json>{value};
  if (list.empty()) throw Error(where + " is an empty list");
  for (const json& v : list)
    if (v.is_array() || v.is_null() || (v.is_object() && !objects))
      throw Error(where + (objects ? ": each value must be a number, boolean, string or object"
                                   : ": each value must be a number, boolean or string"));
  return list;
}

/// A list of counts in [minimum, maximum].
std::vector<std::uint64_t> count_list(const json& value, const std::string& where, std::uint64_t minimum,
                                      std::uint64_t maximum) {
  std::vector<std::uint64_t> counts;
  for (const json& v : value_list(value, where)) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::uint64_t>() < minimum ||
        v.get<std::uint64_t>() > maximum)
      throw Error(fmt::format("{}: {} is not a whole number in {}..{}", where, v.dump(), minimum, maximum));
    counts.push_back(v.get<std::uint64_t>());
  }
  return counts;
}

/// {"array.rows": 16} as {"array": {"rows": 16}}.
json nested(const std::string& key, const json& value) {
  json patch = value;
  std::string rest = key;
  for (std::size_t dot = rest.rfind('.');; dot = rest.rfind('.')) {
    const std::string leaf = dot == std::string::npos ? rest : rest.substr(dot + 1);
    if (leaf.empty()) throw Error(fmt::format("axis '{}' has an empty path component", key));
    patch = json{{leaf, patch}};
    if (dot == std::string::npos) return patch;
    rest = rest.substr(0, dot);
  }
}

std::string csv_text(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::vector<SweepAxis> parse_axes(const json& axes, const accel::AccelConfig& base) {
  if (!axes.is_object()) throw Error("axes must be an object of \"dotted.key\": [values]");
  std::vector<SweepAxis> out;
  for (const auto& [key, values] : axes.items()) {  // nlohmann::json keeps keys sorted
    // An object is a whole configuration object (e.g. "memory": {"model": "dram", "device": "HBM2"}).
    SweepAxis axis{key, value_list(values, "axis '" + key + "'", true)};
    for (const json& v : axis.values) {  // each value must be valid over the base configuration on its own
      try {                              // the configuration's parser names an unknown key and a value out of range
        (void)accel::with_overrides(base, nested(key, v), "sweep axis");
      } catch (const Error& e) {
        throw Error(fmt::format("axis '{}' value {}: {}", key, v.dump(), e.what()));
      }
    }
    out.push_back(std::move(axis));
  }
  // an axis whose objects set a key another axis sweeps: one patch would overwrite the other's value
  for (const SweepAxis& outer : out)
    for (const SweepAxis& inner : out) {
      if (!inner.key.starts_with(outer.key + ".")) continue;
      std::string pointer = "/" + inner.key.substr(outer.key.size() + 1);
      std::replace(pointer.begin(), pointer.end(), '.', '/');
      for (const json& v : outer.values)
        if (v.is_object() && v.contains(json::json_pointer(pointer)))
          throw Error(fmt::format("axis '{}' sets '{}', which axis '{}' sweeps: give it in one of them", outer.key,
                                  inner.key, inner.key));
    }
  return out;
}

std::vector<SweepWorkload> parse_workloads(const json& workloads) {
  if (!workloads.is_array() || workloads.empty()) throw Error("workloads must be a non-empty list");
  const ModelZoo zoo = ModelZoo::builtin();
  std::vector<SweepWorkload> out;
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const json& w = workloads[i];
    const std::string path = fmt::format("workloads[{}]", i);
    if (w.contains("model")) {
      check_keys(w, {"model", "batch"}, path);
      if (!w["model"].is_string()) throw Error("workloads: model must be a zoo model's name");
      const std::string model = w["model"].get<std::string>();
      (void)zoo.build(model, ModelOptions{});  // throws listing the zoo's models
      for (std::uint64_t batch : count_list(w.value("batch", json(1)), model + " batch", 1, kMaxDimension))
        out.push_back({model, batch, 0, 0, 0, "", nullptr, nullptr, ""});
    } else if (w.contains("hf_config")) {
      check_keys(w, {"hf_config", "batch"}, path);
      if (!w["hf_config"].is_string()) throw Error("workloads: hf_config must be a Hugging Face config.json file");
      const std::string file = w["hf_config"].get<std::string>();
      auto hf_zoo = std::make_shared<const ModelZoo>(hf_config_zoo(file));
      const std::string model = hf_config_model_name(file);
      (void)hf_zoo->build(model, ModelOptions{});  // its default prefill builds
      for (std::uint64_t batch : count_list(w.value("batch", json(1)), model + " batch", 1, kMaxDimension))
        out.push_back({model, batch, 0, 0, 0, "", nullptr, hf_zoo, file});
    } else if (w.contains("onnx")) {
      check_keys(w, {"onnx"}, path);
      if (!w["onnx"].is_string()) throw Error("workloads: onnx must be an ONNX model file");
      const std::string file = w["onnx"].get<std::string>();
      out.push_back({"", 1, 0, 0, 0, file, std::make_shared<OnnxModel>(import_onnx(file)), nullptr, ""});
    } else if (w.contains("layer")) {
      check_keys(w, {"layer"}, path);
      const json& l = w["layer"];
      check_keys(l, {"batch", "seq", "dim", "heads"}, path + ".layer");
      if (!l.contains("seq")) throw Error("layer: give seq (tokens N)");
      for (std::uint64_t batch : count_list(l.value("batch", json(1)), "layer batch", 1, kMaxDimension))
        for (std::uint64_t seq : count_list(l["seq"], "layer seq", 1, kMaxDimension))
          for (std::uint64_t dim : count_list(l.value("dim", json(32)), "layer dim", 1, kMaxDimension))
            for (std::uint64_t heads : count_list(l.value("heads", json(1)), "layer heads", 1, kMaxDimension))
              out.push_back({"", batch, seq, dim, heads, "", nullptr, nullptr, ""});
    } else {
      throw Error(path + ": each workload needs \"model\", \"hf_config\", \"onnx\" or \"layer\"");
    }
  }
  return out;
}

std::vector<SweepVariant> parse_variants(const json& variants) {
  if (!variants.is_array() || variants.empty()) throw Error("variants must be a non-empty list");
  std::vector<SweepVariant> out;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const json& v = variants[i];
    if (!v.is_object() || !v.contains("name") || !v["name"].is_string())
      throw Error("each variant needs \"name\": a variant of the registry");
    const AttentionVariant variant = attention_variant_named(v["name"].get<std::string>());
    std::vector<SweepVariant> expanded{{AttentionConfig{}, ""}};
    expanded[0].parameters.variant = variant;
    for (const auto& [key, values] : v.items()) {
      if (key == "name") continue;
      const VariantParameter* parameter = nullptr;
      std::vector<std::string_view> read{"name"};  // the keys of this variant
      for (const VariantParameter& p : kVariantParameters)
        if (variant_info(variant).parameters.contains(p.id)) {
          read.push_back(p.name);
          if (p.name == key) parameter = &p;
        }
      if (!parameter)
        throw Error(fmt::format(
            "variants[{}].{}: {}", i, key,
            unknown_key_problem(key, read, fmt::format("variant '{}' reads no such parameter", name(variant)))));
      std::vector<SweepVariant> next;
      for (const SweepVariant& partial : expanded)
        for (std::uint64_t value :
             count_list(values, fmt::format("{} {}", name(variant), key), parameter->minimum, parameter->maximum)) {
          SweepVariant s = partial;
          s.parameters.parameter(parameter->id) = value;
          s.given += fmt::format("{}{}={}", s.given.empty() ? "" : " ", key, value);
          s.sliding_window_given |= parameter->id == VariantParameterId::sliding_window;
          next.push_back(std::move(s));
        }
      expanded = std::move(next);
    }
    out.insert(out.end(), expanded.begin(), expanded.end());
  }
  return out;
}

std::optional<double> area_bound(const json& constraints, const char* key) {
  if (!constraints.contains(key)) return std::nullopt;
  const json& v = constraints[key];
  if (!v.is_number() || !(v.get<double>() > 0))
    throw Error(fmt::format("constraints.{} must be a positive number of mm²", key));
  return v.get<double>();
}

}  // namespace

std::string SweepWorkload::label() const {
  if (!onnx.empty()) return "onnx " + onnx;  // the path as the spec gives it: two files of one name stay apart
  return model.empty() ? fmt::format("layer b{} n{} d{} h{}", batch, seq, dim, heads)
                       : fmt::format("{} b{}", model, batch);
}

std::size_t SweepSpec::configurations() const {
  std::size_t n = 1;
  for (const SweepAxis& a : axes) n *= a.values.size();
  return n;
}

json SweepSpec::overrides(std::size_t index) const {
  json patch = json::object();
  for (auto a = axes.rbegin(); a != axes.rend(); ++a) {
    patch.merge_patch(nested(a->key, a->values[index % a->values.size()]));
    index /= a->values.size();
  }
  return patch;
}

std::vector<json> SweepSpec::axis_points(std::size_t index) const {
  std::vector<json> values(axes.size());
  for (std::size_t i = axes.size(); i-- > 0;) {
    values[i] = axes[i].values[index % axes[i].values.size()];
    index /= axes[i].values.size();
  }
  return values;
}

std::vector<std::string> SweepSpec::axis_values(std::size_t index) const {
  std::vector<std::string> values;
  for (const json& v : axis_points(index)) values.push_back(csv_text(v));
  return values;
}

namespace {

/// Throws naming the first string of `j` (a value or a key, depth first) holding a line break or another
/// control character: the rows are lines of sweep.csv (read back by --resume and MPI's gathering).
void refuse_control_characters(const json& j, const std::string& path) {
  const auto check = [&](const std::string& text, const std::string& where) {
    if (std::any_of(text.begin(), text.end(), [](unsigned char ch) { return ch < 0x20 || ch == 0x7f; }))
      throw Error(fmt::format("{}: a control character (a line break?) in a string: the rows are lines of sweep.csv",
                              where.empty() ? "the spec" : where));
  };
  if (j.is_string()) check(j.get<std::string>(), path);
  if (j.is_object())
    for (const auto& [key, value] : j.items()) {
      const std::string where = path.empty() ? key : path + "." + key;
      check(key, where);
      refuse_control_characters(value, where);
    }
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) refuse_control_characters(j[i], fmt::format("{}[{}]", path, i));
}

}  // namespace

SweepSpec parse_sweep_spec(std::string_view json_text, const std::string& origin) {
  SweepSpec spec;
  spec.document = parse_json(json_text, origin);
  const json& d = spec.document;
  try {
    refuse_control_characters(d, "");
    check_keys(d, {"accelerator", "axes", "workloads", "variants", "engine", "constraints"}, "");
    if (d.contains("accelerator")) {
      if (!d["accelerator"].is_string()) throw Error("accelerator must be a built-in configuration's name");
      spec.accelerator = d["accelerator"].get<std::string>();
    }
    const accel::AccelConfig base = accel::builtin_config(spec.accelerator);
    if (d.contains("axes")) spec.axes = parse_axes(d["axes"], base);
    if (!d.contains("workloads"))
      throw Error("give workloads: [{\"model\": ...}, {\"hf_config\": FILE}, {\"onnx\": FILE} or {\"layer\": {...}}]");
    spec.workloads = parse_workloads(d["workloads"]);
    if (!d.contains("variants")) throw Error("give variants: [{\"name\": \"msa\"}, ...]");
    spec.variants = parse_variants(d["variants"]);
    // a zoo model's lsa and sra blocks take its own windows, reduction ratios and grids, stage by stage
    const bool zoo_models = std::any_of(spec.workloads.begin(), spec.workloads.end(),
                                        [](const SweepWorkload& w) { return !w.model.empty() && !w.zoo; });
    for (std::size_t i = 0; zoo_models && i < d["variants"].size(); ++i)
      for (const VariantParameter* p : model_layout_parameters())
        if (const std::string key(p->name); d["variants"][i].is_object() && d["variants"][i].contains(key))
          throw Error(
              fmt::format("variants[{}]: {} does not apply to a zoo model's workload (its windows, "
                          "reduction ratios and token grids are its own, stage by stage): it sets a "
                          "layer's or an ONNX model's",
                          i, key));
    std::uint64_t configurations = 1;  // checked as it grows: a product of long axes must not wrap
    for (const SweepAxis& a : spec.axes)
      if ((configurations *= a.values.size()) > kMaxSweepConfigurations)
        throw Error(fmt::format("the axes span more than {} configurations", kMaxSweepConfigurations));
    if (spec.points() > kMaxSweepPoints)
      throw Error(fmt::format("the spec spans {} points, above the limit of {}", spec.points(), kMaxSweepPoints));
    if (d.contains("engine")) {
      if (!d["engine"].is_string()) throw Error("engine must be a string");
      spec.engine = accel::parse_engine(d["engine"].get<std::string>());
    }
    if (d.contains("constraints")) {
      const json& c = d["constraints"];
      check_keys(c, {"max_area_mm2", "min_area_mm2"}, "constraints");
      spec.min_area_mm2 = area_bound(c, "min_area_mm2");
      spec.max_area_mm2 = area_bound(c, "max_area_mm2");
      if (spec.min_area_mm2 && spec.max_area_mm2 && *spec.min_area_mm2 > *spec.max_area_mm2)
        throw Error(fmt::format("contradictory constraints: min_area_mm2 {} is above max_area_mm2 {}",
                                *spec.min_area_mm2, *spec.max_area_mm2));
    }
  } catch (const Error& e) {
    throw Error(origin + ": " + e.what());
  }
  return spec;
}

SweepSpec default_sweep_spec() { return parse_sweep_spec(embedded::default_sweep(), "builtin default_sweep.json"); }

}  // namespace ecosim::cli
