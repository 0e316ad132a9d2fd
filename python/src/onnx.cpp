// count_onnx: an ONNX model held in memory (torch.onnx.export into a BytesIO) imported by ecosim::onnx_import
// and counted as `ecosim count --onnx` counts a file: its attention blocks kept or swapped for a variant.
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"

namespace ecosim::python {

namespace py = pybind11;

namespace {

/// The variant `name` with `parameters` (by their JSON names, e.g. proj_k) over their defaults; throws
/// ecosim::Error for an unknown parameter, one the variant does not read, or a value outside its range.
AttentionConfig swap_config(const std::string& name, const std::map<std::string, std::int64_t>& parameters) {
  AttentionConfig c;
  c.variant = attention_variant_named(name);
  const VariantInfo& info = variant_info(c.variant);
  for (const auto& [key, value] : parameters) {
    const VariantParameter* found = nullptr;
    for (const VariantParameter& p : kVariantParameters)
      if (p.name == key) found = &p;
    if (found == nullptr) throw Error("unknown attention parameter '" + key + "'");
    if (!info.parameters.contains(found->id))
      throw Error(fmt::format("{} does not read the parameter {}", info.name, key));
    if (value < 0 || static_cast<std::uint64_t>(value) < found->minimum ||
        static_cast<std::uint64_t>(value) > found->maximum)
      throw Error(fmt::format("{} must be an integer in {}..{}, got {}", key, found->minimum, found->maximum, value));
    c.parameter(found->id) = static_cast<std::uint64_t>(value);
  }
  return c;
}

py::dict counts(const OpCounts& c, const TechTable& tech) {
  py::dict d;
  d["muls"] = c.ops(OpKind::mul);
  d["adds"] = c.ops(OpKind::add);
  d["energy_pj"] = tech.energy_pj(c);
  d["bytes_read"] = c.read_bytes();
  d["bytes_written"] = c.written_bytes();
  return d;
}

py::dict count_onnx(const py::bytes& data, const std::string& origin, const std::optional<std::string>& attention,
                    const std::map<std::string, std::int64_t>& parameters, const std::string& convention_name,
                    bool strict, bool per_layer, const std::string& rules, const std::string& scope) {
  OnnxImportOptions options;
  options.strict = strict;
  const Convention convention = parse_convention(convention_name);
  if (rules != "mmcv" && rules != "fvcore") throw Error("rules must be 'mmcv' or 'fvcore', got '" + rules + "'");
  if (rules == "fvcore" && convention != Convention::paper)
    throw Error("rules 'fvcore' counts MACs: it needs convention 'paper'");
  if (scope != "model" && scope != "attention")
    throw Error("scope must be 'model' or 'attention', got '" + scope + "'");
  for (const auto& [key, value] : parameters)  // a misspelt option is not taken for a variant's parameter
    if (std::none_of(kVariantParameters.begin(), kVariantParameters.end(),
                     [&](const VariantParameter& p) { return p.name == key; }))
      throw Error("unknown option or attention parameter '" + key + "'");
  const OnnxModel model = parse_onnx(std::string_view(data), origin, options);
  std::optional<AttentionConfig> swap;
  if (attention && *attention != "native") swap = swap_config(*attention, parameters);
  if (!swap && !parameters.empty()) throw Error("attention parameters need an attention variant to swap in");
  const TechTable tech = TechTable::builtin_45nm();
  OpCounts total;
  py::list layers;
  std::vector<Layer> counted = onnx_layers(model, swap);
  if (rules == "fvcore") counted = fvcore_layers(counted);
  if (scope == "attention") std::erase_if(counted, [](const Layer& l) { return !is_attention(l); });
  for (const Layer& layer : counted) {
    OpCounter counter;
    emit(layer, convention, counter);
    total += counter.total();
    if (!per_layer) continue;
    py::dict row = counts(counter.total(), tech);
    row["name"] = layer.name;
    layers.append(row);
  }
  py::dict report = counts(total, tech);
  py::list blocks;
  for (const FoundAttention& a : model.attention) {
    py::dict block;
    block["nodes"] = a.nodes;
    block["batch"] = a.shape.batch;
    block["heads"] = a.shape.heads;
    block["kv_heads"] = a.shape.kv_heads;
    block["queries"] = a.shape.queries;
    block["keys"] = a.shape.keys;
    block["head_dim"] = a.shape.head_dim;
    block["causal"] = a.shape.causal;
    blocks.append(block);
  }
  report["attention_blocks"] = blocks;
  report["unknown_ops"] = model.unknown_ops;
  report["unmatched_attention"] = model.unmatched_attention;
  report["convention"] = std::string(name(convention));
  report["rules"] = rules;
  report["scope"] = scope;
  report["tech_table"] = tech.name();
  if (per_layer) report["layers"] = layers;
  return report;
}

}  // namespace

void bind_onnx(py::module_& m) {
  m.def("onnx_supported", &onnx_supported, "True when ecosim was built with ONNX import (ECOSIM_ONNX).");
  m.def("count_onnx", &count_onnx, py::arg("data"), py::arg("origin"), py::arg("attention") = std::nullopt,
        py::arg("parameters") = std::map<std::string, std::int64_t>{}, py::arg("convention") = "paper",
        py::arg("strict") = false, py::arg("per_layer") = false, py::arg("rules") = "mmcv", py::arg("scope") = "model",
        "Counts the ONNX model serialised in `data` as `ecosim count --onnx` does (its totals, the attention "
        "blocks found, the op types not counted); `attention` swaps every block for a variant.");
}

}  // namespace ecosim::python
