// import_onnx / parse_onnx with ONNX support: the graph read (onnx_read.cpp), then each node in execution order
// either the start of a pattern (onnx_patterns.cpp), or one layer (onnx_nodes.cpp), or an unknown op.
#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <set>

#include "ecosim/ops_counter/input_files.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "onnx_convert.hpp"

namespace ecosim {

bool onnx_supported() { return true; }

namespace {

/// A node as only an inference export writes it (OnnxModel::inference_export_nodes).
bool inference_form(const onnx_import::Context& c, const onnx_import::Node& n) {
  if (n.op == "Conv")  // a BatchNorm folded in makes both its weight and its bias (a weight norm only a weight)
    return n.inputs.size() > 2 && std::all_of(n.inputs.begin() + 1, n.inputs.begin() + 3, [&](const std::string& t) {
             return c.constant(t) && t.starts_with("onnx::Conv_");
           });
  if (n.op != "BatchNormalization") return false;
  const auto outputs =
      std::count_if(n.outputs.begin(), n.outputs.end(), [](const std::string& o) { return !o.empty(); });
  const auto mode = n.ints.find("training_mode");
  const bool training = mode != n.ints.end() && !mode->second.empty() && mode->second[0] != 0;
  return outputs == 1 && !training && n.inputs.size() == 5 && c.constant(n.inputs[3]) && c.constant(n.inputs[4]);
}

}  // namespace

OnnxModel parse_onnx(std::string_view bytes, const std::string& origin, const OnnxImportOptions& options) {
  const onnx_import::Graph graph = onnx_import::read_onnx_graph(bytes, origin);
  const onnx_import::Context context(graph, origin);
  OnnxModel model;
  model.origin = origin;
  if (const auto first = graph.inputs.empty() ? graph.tensors.end() : graph.tensors.find(graph.inputs.front());
      first != graph.tensors.end() && first->second.dims && !first->second.dims->empty() && first->second.dims->front())
    model.batch = first->second.dims->front();
  std::vector<bool> done(graph.nodes.size(), false);
  // tensor → the layer whose output it is (a view — Reshape, Flatten, Squeeze, ... — passes its input's on), so
  // that a layer reading another than the layer before it (a residual's shortcut, a branch) names it in
  // Layer::input: the training step's saved tensors alias by it.
  std::map<std::string, std::string> producer;
  // Ops whose output shows input 0's data (moved, reshaped, cast): a weight or table read through them is still it.
  static const std::set<std::string> shows_input = {"Expand",  "Tile",     "Reshape", "Unsqueeze", "Squeeze",
                                                    "Flatten", "Identity", "Cast",    "Transpose"};
  std::map<std::string, std::string> alias;  // a view's output → the initializer it shows
  std::set<std::string> counted_tables;      // initializers counted as a layer's table parameters
  std::set<std::string> claimed_weights;     // initializers read as a layer's weights, bias, γ or β
  // A product's or convolution's weight is that layer's parameters: never a table too (a tied embedding read by
  // a Gather and, transposed, by the head is counted once). Weights reach them directly, through one view, or
  // as a transposed copy the exporter stored (Tensor::transposed_twin).
  std::map<std::string, std::string> view_source;
  for (const onnx_import::Node& node : graph.nodes)
    if (shows_input.contains(node.op) && !node.inputs.empty())
      for (const std::string& out : node.outputs) view_source[out] = node.inputs[0];
  for (const onnx_import::Node& node : graph.nodes)
    if ((node.op == "MatMul" || node.op == "Gemm" || node.op == "Conv" || node.op == "ConvTranspose") &&
        node.inputs.size() > 1) {
      std::string weight = node.inputs[1];
      if (const auto it = view_source.find(weight); it != view_source.end()) weight = it->second;
      counted_tables.insert({node.inputs[1], weight});
      if (const onnx_import::Tensor* t = context.tensor(weight); t && !t->transposed_twin.empty())
        counted_tables.insert(t->transposed_twin);
    }
  // the graph's inputs (not weights) by name, so that every layer reading one — a decoder's memory, a second
  // input — saves that tensor, once
  for (const auto& [name, tensor] : graph.tensors)
    if (!tensor.constant && !context.producer(name)) producer[name] = network_input_name(name);
  const auto place = [&](Layer& layer, const onnx_import::Node& first, const std::vector<std::string>& outputs) {
    // the operand it reads: the first, or an elementwise op's second where the first is a constant (1 − mask)
    const auto* e = std::get_if<Elementwise>(&layer.op);
    const std::size_t read = e && (e->constant_operands & 1u) && first.inputs.size() == 2 ? 1 : 0;
    const std::string first_input = first.inputs.size() > read ? first.inputs[read] : "";
    if (const auto it = producer.find(first_input);
        it != producer.end() && (model.layers.empty() || model.layers.back().name != it->second))
      layer.input = it->second;
    // a product's other operand, when it is an activation (a weight is the layer's own parameters)
    if (read == 0 && first.inputs.size() == 2 && !context.constant(first.inputs[1]) && !context.scalar(first.inputs[1]))
      if (const auto it = producer.find(first.inputs[1]); it != producer.end()) layer.other = it->second;
    for (const std::string& out : outputs) producer[out] = layer.name;
  };
  // The transpose whose view `tensor` is, made a copy: PyTorch copies it where a reshape cannot view it
  // (reshape_copies), and the copy is what a later layer saves. (A Linear over a transposed 3-D view does not copy
  // it: torch's matmul then multiplies it batched rather than folding its rows.)
  const auto copy_transpose = [&](const std::string& tensor) {
    const auto it = producer.find(tensor);
    if (it == producer.end()) return;
    for (auto l = model.layers.rbegin(); l != model.layers.rend(); ++l)  // (the transpose: usually the last)
      if (l->name == it->second) {
        if (auto* d = std::get_if<DataMovement>(&l->op); d && d->func == "Transpose") d->view = false;
        return;
      }
  };
  // The nodes computing nothing but a BatchNormalization's mean and variance operands (3 and 4): an export of a
  // BatchNorm without running statistics spells its batch statistics out (Layer::batch_statistics).
  std::vector<bool> statistics(graph.nodes.size(), false);
  for (std::size_t k = graph.nodes.size(); k-- > 0;) {
    bool only = false;
    for (const std::string& out : graph.nodes[k].outputs) {
      if (out.empty()) continue;
      const std::vector<std::size_t>& readers = context.consumers(out);
      only = !readers.empty() && std::all_of(readers.begin(), readers.end(), [&](std::size_t r) {
        const onnx_import::Node& reader = graph.nodes[r];
        if (statistics[r]) return true;
        if (reader.op != "BatchNormalization") return false;
        for (std::size_t i = 0; i < reader.inputs.size(); ++i)
          if (reader.inputs[i] == out && i < 3) return false;
        return true;
      });
      if (!only) break;
    }
    statistics[k] = only;
  }
  // What the training step needs of a layer made of graph nodes `nodes`: its parameters an earlier layer has, and
  // whether it only computes a BatchNorm's statistics
  const auto mark = [&](Layer& layer, const std::vector<std::size_t>& nodes) {
    std::vector<const onnx_import::Node*> read;
    for (std::size_t k : nodes) read.push_back(&graph.nodes[k]);
    layer.shared_parameters = onnx_import::shared_parameters(context, read, layer, alias, claimed_weights);
    layer.batch_statistics = std::all_of(nodes.begin(), nodes.end(), [&](std::size_t k) { return statistics[k]; });
  };
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    if (done[i]) continue;
    const onnx_import::Node& node = graph.nodes[i];
    if (auto match = onnx_import::match_pattern(context, i)) {
      std::vector<std::string> names;
      for (std::size_t k : match->nodes) {
        if (done[k]) throw Error("ONNX model '" + origin + "': node '" + graph.nodes[k].name + "' matched twice");
        done[k] = true;
        names.push_back(graph.nodes[k].name);
      }
      match->layer.name = names.front() + ".." + names.back();
      if (match->attention) {
        FoundAttention found{names, std::get<SoftmaxAttention>(match->layer.op)};
        for (std::size_t k : match->operand_scales) {  // a one-node elementwise layer, placed before the block
          const auto is_scale = [&](const Layer& l) {
            return l.name == graph.nodes[k].name && std::holds_alternative<Elementwise>(l.op);
          };
          if (std::count_if(model.layers.begin(), model.layers.end(), is_scale) != 1) continue;
          found.operand_scale_layers.push_back(graph.nodes[k].name);
          std::find_if(model.layers.begin(), model.layers.end(), is_scale)->attention_part = true;  // the block's
        }
        model.attention.push_back(std::move(found));
      }
      const onnx_import::Node& first = graph.nodes[match->nodes.front()];
      const onnx_import::Node& last = graph.nodes[match->nodes.back()];
      mark(match->layer, match->nodes);
      if (std::holds_alternative<SoftmaxAttention>(match->layer.op) && last.inputs.size() == 2)
        if (const auto it = producer.find(last.inputs[1]); it != producer.end()) match->layer.value = it->second;  // v
      place(match->layer, first, last.outputs);
      model.layers.push_back(std::move(match->layer));
      continue;
    }
    if (node.outputs.size() == 1 && (graph.folded.contains(node.outputs[0]) || context.constant(node.outputs[0]))) {
      // a shape being computed, or a constant's data moved (an initializer expanded, reshaped, transposed or
      // cast: a class token's copies, a weight an unfolded export transposes; rows gathered or sliced from a
      // table: a position table's first rows) — which shows it
      if ((shows_input.contains(node.op) || node.op == "Gather" || node.op == "Slice") && !node.inputs.empty())
        alias[node.outputs[0]] = alias.contains(node.inputs[0]) ? alias.at(node.inputs[0]) : node.inputs[0];
      continue;
    }
    if (onnx_import::attention_like_softmax(context, i)) model.unmatched_attention.push_back(node.name);
    if (inference_form(context, node)) model.inference_export_nodes.push_back(node.name);
    onnx_import::NodeLayer layer = onnx_import::node_layer(context, node);
    if (!layer.known) ++model.unknown_ops[node.op];
    if (!layer.layer) {  // a view (or an unknown op): its outputs are its input's tensor
      if ((node.op == "Reshape" || node.op == "Flatten") && onnx_import::reshape_copies(context, node))
        copy_transpose(node.inputs[0]);
      if (!node.inputs.empty()) {
        if (const auto it = producer.find(node.inputs[0]); it != producer.end())
          for (const std::string& out : node.outputs) producer[out] = it->second;
        const auto shown = alias.find(node.inputs[0]);
        for (const std::string& out : node.outputs) alias[out] = shown == alias.end() ? node.inputs[0] : shown->second;
      }
      continue;
    }
    layer.layer->name = node.name;
    layer.layer->table_parameters = onnx_import::read_parameters(context, node, *layer.layer, alias, counted_tables);
    mark(*layer.layer, {i});
    if (auto* e = std::get_if<Elementwise>(&layer.layer->op))
      e->learned_operands = onnx_import::learned_operands(context, node, alias);
    place(*layer.layer, node, node.outputs);
    model.layers.push_back(std::move(*layer.layer));
  }
  // (through the Identity copies an exporter writes of one initializer for several equal ones)
  const auto initializer = [&](std::string tensor) {
    for (auto p = context.producer(tensor); p && graph.nodes[*p].op == "Identity" && !graph.nodes[*p].inputs.empty();
         p = context.producer(tensor))
      tensor = graph.nodes[*p].inputs[0];
    return tensor;
  };
  std::map<std::string, int> norm_scales;  // scale initializer → norms reading it
  for (const onnx_import::Node& node : graph.nodes)
    if ((node.op == "LayerNormalization" || node.op == "BatchNormalization") && node.inputs.size() > 1 &&
        context.constant(node.inputs[1]))
      if (const std::string scale = initializer(node.inputs[1]); ++norm_scales[scale] == 2)
        model.shared_norm_scales.push_back(scale);
  if (options.strict && !model.unknown_ops.empty())
    throw Error(fmt::format("ONNX model '{}': unknown op types (refused under --strict): {}", origin,
                            unknown_op_summary(model)));
  return model;
}

OnnxModel import_onnx(const std::string& path, const OnnxImportOptions& options) {
  remember_input_file(path);
  return parse_onnx(read_text_file(path, options.max_file_bytes, "--onnx-max-bytes"), path, options);
}

}  // namespace ecosim
