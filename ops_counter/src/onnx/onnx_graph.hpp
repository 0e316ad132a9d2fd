// Internal: an ONNX graph reduced to what counting needs — nodes in execution order, the static shapes of their
// tensors, the constants' scalar values — read from protobuf by read_onnx_graph (onnx_read.cpp).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ecosim::onnx_import {

struct Tensor {
  std::optional<std::vector<std::uint64_t>> dims;   // static shape, when known
  bool constant = false;                            // an initializer or a Constant node's output
  bool external = false;                            // a constant stored as external data: its values unknown
  std::optional<double> scalar;                     // the value of a one-element constant
  std::optional<std::vector<std::int64_t>> values;  // an integer constant of at most kMaxFoldedElements
  /// A constant of rank ≥ 2 whose every trailing q × k slice (k ≥ q) is the causal pattern, query i attending to
  /// keys j ≤ k − q + i: `causal_additive` a float mask, 0 where attended and ≤ kMaskedBelow elsewhere;
  /// `causal_keep` / `causal_drop` a bool condition true exactly where attended / masked.
  bool causal_additive = false, causal_keep = false, causal_drop = false;
};

/// An additive mask value at or below this hides its score (exp underflows to 0 next to an unmasked score).
inline constexpr double kMaskedBelow = -1e4;

/// Integer tensors (shapes being computed) evaluated while folding are at most this long.
inline constexpr std::size_t kMaxFoldedElements = 64;

struct Node {
  std::string name;  // the node's name, or "<op>_<index>" when it has none
  std::string op;
  std::vector<std::string> inputs, outputs;  // "" = an omitted optional input
  std::map<std::string, std::vector<std::int64_t>> ints;
  bool has_subgraph = false;  // If/Loop/Scan bodies are not counted
  std::int64_t fill = 0;      // ConstantOfShape's value (as an integer)
};

struct Graph {
  std::vector<Node> nodes;  // topologically sorted
  std::map<std::string, Tensor> tensors;
  /// Tensors evaluated while folding: shapes computed from constants, which cost the network nothing.
  std::set<std::string> folded;
};

/// The static shapes of Expand and Reshape outputs that ONNX inference leaves symbolic because their target shape
/// is computed from constants (PyTorch's expand(B, −1, −1) exports Where/Equal/ConstantOfShape), found by
/// evaluating the small integer tensors along the graph (onnx_fold.cpp).
/// The tensors evaluated are added to graph.folded.
std::map<std::string, std::vector<std::uint64_t>> fold_shapes(Graph& graph);

/// Parses `bytes` (protobuf, recursion-limited), checks that every input is defined and that the graph has no
/// cycle, runs ONNX shape inference and collects the shapes. Throws ecosim::Error naming `origin`.
Graph read_onnx_graph(std::string_view bytes, const std::string& origin);

}  // namespace ecosim::onnx_import
