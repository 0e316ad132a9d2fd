// Internal: an ONNX graph reduced to what counting needs — nodes in execution order, the static shapes of their
// tensors, the constants' scalar values — read from protobuf by read_onnx_graph (onnx_read.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ecosim::onnx_import {

/// The contents of a small tensor in row-major order: integer and boolean elements exactly, floating-point ones as
/// double (`real`).
struct Values {
  bool real = false;
  std::vector<std::int64_t> ints;  // when !real (booleans 0/1)
  std::vector<double> reals;       // when real
  std::size_t size() const { return real ? reals.size() : ints.size(); }
  double at(std::size_t i) const { return real ? reals[i] : static_cast<double>(ints[i]); }
};

/// The value of a tensor too large to fold (kMaxFoldedElements) whose every trailing rows × cols slice holds two
/// values split at a diagonal: element (r, c) is `upper` where c − r ≥ `offset`, else `lower` (`upper` == `lower`:
/// uniform, whatever its shape) — how masks over long sequences are built from shapes (a constant of −inf or of
/// ones, Trilu, then comparisons, casts and Where), kept without their rows² elements.
struct Band {
  bool real = false;  // as Values: integers and booleans exactly, floating-point as double
  double upper = 0, lower = 0;
  std::int64_t offset = 0;
  bool uniform() const { return upper == lower; }
};

struct Tensor {
  std::optional<std::vector<std::uint64_t>> dims;  // static shape, when known
  bool constant = false;                           // an initializer or a Constant node's output
  bool external = false;                           // a constant stored as external data: its values unknown
  bool boolean = false;                            // of element type bool (a selection mask), where declared
  /// A floating-point graph initializer: where an op reads it directly (a table gathered, a token concatenated,
  /// an embedding or a bias added, a scale multiplied), a trainable parameter of the training step.
  bool float_initializer = false;
  std::optional<double> scalar;  // the value of a one-element constant
  std::optional<Values> values;  // an inline constant's or a folded tensor's (at most kMaxFoldedElements)
  std::optional<Band> band;      // a larger one's, where it is two values split at a diagonal (or one)
  /// A constant of rank ≥ 2 whose every trailing q × k slice (k ≥ q) is the causal pattern, query i attending to
  /// keys j ≤ k − q + i: `causal_additive` a float mask, 0 where attended and ≤ kMaskedBelow elsewhere;
  /// `causal_keep` / `causal_drop` a bool condition true exactly where attended / masked.
  bool causal_additive = false, causal_keep = false, causal_drop = false;
  /// Another initializer holding this one's values transposed: a tied weight an exporter stored twice
  /// (onnx_tied.hpp).
  std::string transposed_twin;
};

/// Sets the causal_* flags of `t` (of static shape t.dims, `elements` elements) from its values, element e being
/// value(e) in row-major order; `boolean`: a bool tensor (0/1), else an additive float mask. Stops at the first
/// value that rules the flags out. Defined in onnx_mask.cpp.
void classify_causal(Tensor& t, std::uint64_t elements, const std::function<float(std::uint64_t)>& value, bool boolean);
/// The same for a tensor whose value is `band` (of static shape t.dims; a bool tensor unless band.real).
void classify_causal(Tensor& t, const Band& band);

/// An additive mask value at or below this hides its score (exp underflows to 0 next to an unmasked score).
inline constexpr double kMaskedBelow = -1e4;

/// Tensors evaluated by the shape evaluator (constants read, shapes computed) hold at most this many elements...
inline constexpr std::size_t kMaxFoldedElements = std::size_t{1} << 16;
/// ...and at most this many in all (bounded memory on a graph of many shape computations).
inline constexpr std::size_t kMaxFoldedTotal = std::size_t{1} << 22;

struct Node {
  std::string name;  // the node's name, or "<op>_<index>" when it has none
  std::string op;
  std::vector<std::string> inputs, outputs;  // "" = an omitted optional input
  std::map<std::string, std::vector<std::int64_t>> ints;
  std::map<std::string, std::string> strings;  // string attributes (auto_pad, mode, equation)
  std::map<std::string, double> floats;        // float attributes (Attention's scale and softcap)
  bool has_subgraph = false;                   // If/Loop/Scan bodies are not counted
  std::optional<Values> fill;                  // ConstantOfShape's value attribute (absent: float 0)
};

struct Graph {
  std::vector<Node> nodes;  // topologically sorted
  std::map<std::string, Tensor> tensors;
  std::vector<std::string> inputs;  // the graph's inputs fed at run time (not initializers), in the graph's order
  /// Tensors evaluated while folding: shapes computed from constants, which cost the network nothing.
  std::set<std::string> folded;
  /// For a tensor left without a static shape: the input of its producer that kept it unknown ("" when none did:
  /// the op has no shape rule, or its inputs' values do not make a shape). Read by unknown_shape_chain.
  std::map<std::string, std::string> blocked_by;
};

/// Parses `bytes` (protobuf, recursion-limited), checks that every input is defined and that the graph has no
/// cycle, runs ONNX shape inference and collects the shapes. Throws ecosim::Error naming `origin`.
Graph read_onnx_graph(std::string_view bytes, const std::string& origin);

}  // namespace ecosim::onnx_import
