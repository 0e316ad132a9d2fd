// The layers counted for an imported model: its own, or with every found attention block replaced by a variant
// (the scales of its Q and Kᵀ dropped with it).
#include <fmt/core.h>

#include <map>
#include <set>

#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"

namespace ecosim {

namespace {

/// `layers` without those named in `dropped`: a layer that read a dropped one (its input, or its other operand)
/// reads what that one read.
std::vector<Layer> without_layers(const std::vector<Layer>& layers, const std::set<std::string>& dropped) {
  std::map<std::string, std::string> source;  // a dropped layer → the layer (or network input) it read
  std::vector<Layer> kept;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    const auto read = [&](const std::string& name) {
      const auto it = source.find(name);
      return it == source.end() ? name : it->second;
    };
    const std::string input = read(layer.input.empty() && i > 0 ? layers[i - 1].name : layer.input);
    if (dropped.contains(layer.name)) {
      source[layer.name] = input;
      continue;
    }
    Layer copy = layer;
    copy.input = !kept.empty() && input == kept.back().name ? "" : input;
    if (!copy.other.empty()) copy.other = read(copy.other);
    kept.push_back(std::move(copy));
  }
  return kept;
}

}  // namespace

std::vector<Layer> onnx_layers(const OnnxModel& model, const std::optional<AttentionConfig>& swap) {
  if (!swap) return model.layers;
  std::set<std::string> operand_scales;
  for (const FoundAttention& a : model.attention)
    operand_scales.insert(a.operand_scale_layers.begin(), a.operand_scale_layers.end());
  std::vector<Layer> layers = without_layers(model.layers, operand_scales);
  if (!model.unmatched_attention.empty())
    throw Error(fmt::format("ONNX model '{}': cannot swap attention for {}: {}", model.origin, name(swap->variant),
                            unmatched_attention_warning(model)));
  if (model.attention.empty())
    throw Error(
        fmt::format("ONNX model '{}': no attention block to swap for {} (the importer found none: "
                    "count the model as exported, without --attention)",
                    model.origin, name(swap->variant)));
  for (Layer& layer : layers) {
    const auto* found = std::get_if<SoftmaxAttention>(&layer.op);
    if (!found) continue;
    if (found->mask_unknown)
      throw Error(
          fmt::format("ONNX model '{}': attention '{}' cannot become {}: its mask (or a bias added to its scores) "
                      "is a constant stored as external data, so whether the block is causal cannot be told "
                      "(export it inline)",
                      model.origin, layer.name, name(swap->variant)));
    AttentionConfig a = *swap;
    a.batch = found->batch;
    a.heads = found->heads;
    a.kv_heads = found->kv_heads;
    a.seq = found->queries;
    a.keys = found->keys;
    a.causal = found->causal;
    a.head_dim = found->head_dim;
    a.embed_dim = 0;
    a.projections = false;  // the graph's own projections stay
    try {
      // A block knows its token count, not its grid: the most nearly square one must be two-dimensional (a ViT's
      // patches and class token, 197, give only 1 × 197).
      if (variant_info(a.variant).parameters.contains(VariantParameterId::grid_height) && a.grid_height == 0 &&
          token_grid_height(a) == 1 && a.seq > 1)
        throw Error(
            fmt::format("its {} tokens form no two-dimensional grid (only 1 × {}); give the grid with "
                        "--grid-height if they are one",
                        a.seq, a.seq));
      a.validate();
    } catch (const Error& e) {
      throw Error(
          fmt::format("ONNX model '{}': attention '{}' ({} heads × {} queries over {} keys × {}{}) cannot "
                      "become {}: {}",
                      model.origin, layer.name, a.heads, a.seq, a.key_count(), a.head_dim, a.causal ? ", causal" : "",
                      name(a.variant), e.what()));
    }
    layer.op = a;
    layer.name += "[" + std::string(name(a.variant)) + "]";
  }
  return layers;
}

std::string unmatched_attention_warning(const OnnxModel& model) {
  if (model.unmatched_attention.empty()) return "";
  std::string names;
  for (const std::string& n : model.unmatched_attention) names += (names.empty() ? "'" : ", '") + n + "'";
  return fmt::format(
      "{} attention softmax node(s) in no recognised attention block ({}): their MatMuls count as plain matrix "
      "products, their scale and mask as elementwise ops, and --attention cannot swap them",
      model.unmatched_attention.size(), names);
}

std::string swap_dropped_terms_note(const OnnxModel& model, AttentionVariant variant) {
  std::string names;
  std::size_t count = 0;
  for (const Layer& layer : model.layers) {
    const auto* found = std::get_if<SoftmaxAttention>(&layer.op);
    if (!found || !(found->biased || (found->masked && !found->causal))) continue;
    names += fmt::format("{}'{}'", names.empty() ? "" : ", ", layer.name);
    ++count;
  }
  std::string note;
  if (count)
    note = fmt::format(
        "{} attention block(s) add a non-causal mask or a bias to their scores ({}); the swapped {}'s count has no "
        "such term (a variant without a score matrix has nowhere to add one), so it leaves those terms out",
        count, names, name(variant));
  if (variant_info(variant).shares_qk && !model.attention.empty())
    note += fmt::format(
        "{}{} serves queries and keys from one shared projection, but the export's own projections stay: its key "
        "projections ({} block(s)) are counted, which a model built for {} (--model) would not have",
        note.empty() ? "" : "; ", name(variant), model.attention.size(), name(variant));
  return note;
}

std::string unknown_op_summary(const OnnxModel& model) {
  std::string text;
  for (const auto& [op, count] : model.unknown_ops)
    text += fmt::format("{}{} ×{}", text.empty() ? "" : ", ", op, count);
  return text;
}

}  // namespace ecosim
