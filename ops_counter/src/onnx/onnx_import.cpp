// import_onnx / parse_onnx with ONNX support: the graph read (onnx_read.cpp), then each node in execution order
// either the start of a pattern (onnx_patterns.cpp), or one layer (onnx_nodes.cpp), or an unknown op.
#include <fmt/core.h>

#include "ecosim/ops_counter/text_file.hpp"
#include "onnx_convert.hpp"

namespace ecosim {

bool onnx_supported() { return true; }

OnnxModel parse_onnx(std::string_view bytes, const std::string& origin, const OnnxImportOptions& options) {
  const onnx_import::Graph graph = onnx_import::read_onnx_graph(bytes, origin);
  const onnx_import::Context context(graph, origin);
  OnnxModel model;
  model.origin = origin;
  std::vector<bool> done(graph.nodes.size(), false);
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
      if (match->attention) model.attention.push_back({names, std::get<SoftmaxAttention>(match->layer.op)});
      model.layers.push_back(std::move(match->layer));
      continue;
    }
    if (node.outputs.size() == 1 && graph.folded.contains(node.outputs[0])) continue;  // a shape being computed
    if (onnx_import::attention_like_softmax(context, i)) model.unmatched_attention.push_back(node.name);
    onnx_import::NodeLayer layer = onnx_import::node_layer(context, node);
    if (!layer.known) ++model.unknown_ops[node.op];
    if (!layer.layer) continue;
    layer.layer->name = node.name;
    model.layers.push_back(std::move(*layer.layer));
  }
  if (options.strict && !model.unknown_ops.empty())
    throw Error(fmt::format("ONNX model '{}': unknown op types (refused under --strict): {}", origin,
                            unknown_op_summary(model)));
  return model;
}

OnnxModel import_onnx(const std::string& path, const OnnxImportOptions& options) {
  std::string bytes;
  try {
    bytes = read_text_file(path, options.max_file_bytes);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (the ONNX file size limit; raise it with --onnx-max-bytes)");
  }
  return parse_onnx(bytes, path, options);
}

}  // namespace ecosim
