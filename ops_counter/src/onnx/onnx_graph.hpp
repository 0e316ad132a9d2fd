// Internal: an ONNX graph reduced to what counting needs — nodes in execution order, the static shapes of their
// tensors, the constants' scalar values — read from protobuf by read_onnx_graph (onnx_read.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ecosim::onnx_import {

struct Tensor {
  std::optional<std::vector<std::uint64_t>> dims;  // static shape, when known
  bool constant = false;                           // an initializer or a Constant node's output
  std::optional<double> scalar;                    // the value of a one-element constant
};

struct Node {
  std::string name;  // the node's name, or "<op>_<index>" when it has none
  std::string op;
  std::vector<std::string> inputs, outputs;  // "" = an omitted optional input
  std::map<std::string, std::vector<std::int64_t>> ints;
  bool has_subgraph = false;  // If/Loop/Scan bodies are not counted
};

struct Graph {
  std::vector<Node> nodes;  // topologically sorted
  std::map<std::string, Tensor> tensors;
};

/// Parses `bytes` (protobuf, recursion-limited), checks that every input is defined and that the graph has no
/// cycle, runs ONNX shape inference and collects the shapes. Throws ecosim::Error naming `origin`.
Graph read_onnx_graph(std::string_view bytes, const std::string& origin);

}  // namespace ecosim::onnx_import
