// Internal: what the shape evaluator's per-op rules see (onnx_eval_movement.cpp, onnx_eval_arithmetic.cpp: the
// shape arithmetic, folding values; onnx_eval_shapes.cpp: the shapes of the ops that compute on activations) — the
// node's inputs' static shapes and values, and setters that check what they record.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "onnx_graph.hpp"

namespace ecosim::onnx_import {

using Dims = std::vector<std::uint64_t>;

class Evaluator {
 public:
  Evaluator(Graph& graph, const std::string& origin) : graph_(graph), origin_(origin) {}

  /// Input i's static shape / value; nullptr when the input is absent or unknown.
  const Dims* dims(const Node& n, std::size_t i) const;
  const Values* values(const Node& n, std::size_t i) const;
  /// Input i's value as a Band: its band, or a uniform one of a one-element value; none otherwise.
  std::optional<Band> band(const Node& n, std::size_t i) const;
  /// Whether every output of `n` already has a static shape (from the file or ONNX inference).
  bool outputs_known(const Node& n) const;
  /// Input i's value as integers (booleans and integral reals included); none when unknown or not integral.
  std::optional<std::vector<std::int64_t>> ints(const Node& n, std::size_t i) const;
  /// The value of a one-element input, as an integer.
  std::optional<std::int64_t> scalar_int(const Node& n, std::size_t i) const;

  /// Records output `out`'s shape (checked: each dimension ≤ kMaxDimension, the count within 64 bits, equal to
  /// any shape the file declares).
  void set_dims(const Node& n, std::size_t out, Dims dims);
  /// Records output `out`'s shape and value (in graph.tensors; its element count must match); the value is dropped
  /// past the per-tensor and overall budgets (kMaxFoldedElements, kMaxFoldedTotal).
  void set_values(const Node& n, std::size_t out, const Dims& dims, Values v);
  /// Records output `out`'s shape and, when it has more elements than the per-tensor budget (a rule folds smaller
  /// ones in full with set_values), its value as `band`.
  void set_band(const Node& n, std::size_t out, const Dims& dims, const Band& band);

  /// Output `out` is a constant when input `in` is (an Identity of a weight: PyTorch shares a weight used twice
  /// this way).
  void pass_constant(const Node& n, std::size_t in, std::size_t out);
  /// The output of a data-movement op (Transpose, Reshape, Squeeze, Unsqueeze, Flatten, Cast) of a constant is a
  /// constant too — a weight laid out anew, as an export without constant folding writes `x @ Wᵀ` — with no
  /// value and no mask flags unless the op folds it (a transposed causal mask is not causal).
  void carry_constant(const Node& n);

  [[noreturn]] void fail(const Node& n, const std::string& what) const;

  /// One pass over the graph; returns the tensors given a shape they did not have before.
  std::set<std::string> run();

 private:
  const Dims* known_dims(const std::string& t) const;
  bool has_values(const std::string& t) const;
  Graph& graph_;
  const std::string& origin_;
  std::set<std::string> found_;
  std::size_t folded_elements_ = 0;
};

using Rule = std::function<void(Evaluator&, const Node&)>;
using Rules = std::map<std::string, Rule>;

/// The rules of the ops that move data (Reshape, Transpose, Concat, Gather, Slice, Split, Expand, Tile, Pad, ...)
/// and of those that compute shape arithmetic (Shape, Size, Cast, ConstantOfShape, Range, Where, arithmetic): each
/// sets its outputs' shapes and, where its inputs' values are known, their values.
void add_movement_rules(Rules& rules);
void add_arithmetic_rules(Rules& rules);
/// ScatterND: the data's shape and, where its inputs' values are known, its value (onnx_eval_scatter.cpp).
void add_scatter_rules(Rules& rules);
/// The shape rules of the ops on activations (MatMul, Gemm, Conv, pooling, reductions, elementwise, ...).
void add_shape_rules(Rules& rules);

// Bands (onnx_eval_band.cpp): the values of tensors too large to fold, where they are two values split at a diagonal.
/// A folded value of shape `dims` (rank ≥ 2) as a band, where every trailing rows × cols slice is the same two
/// values split at one diagonal; none otherwise (NaN included).
std::optional<Band> band_of(const Values& values, const Dims& dims);
/// Whether a band over an input of shape `in` is the value of an output of shape `out` holding the same elements in
/// their order or broadcast (Identity, Reshape, Unsqueeze, Expand, elementwise ops): a uniform band always, another
/// when both shapes keep the same trailing rows × cols.
bool band_carries(const Band& band, const Dims& in, const Dims& out);
/// The band of an elementwise op's output of shape `out` (of `real` elements) from its inputs' bands, each carrying
/// to `out` and the non-uniform ones at one offset: `value` of the inputs' upper values and of their lower ones, in
/// input order (none: no band); none when an input is absent or has no band.
std::optional<Band> elementwise_band(const Evaluator& e, const Node& n, const Dims& out, bool real,
                                     const std::function<std::optional<double>(const std::vector<double>&)>& value);

// Helpers shared by the rule files.
std::uint64_t element_count(const Dims& dims);
/// NumPy broadcasting of two shapes; none when they do not broadcast.
std::optional<Dims> broadcast(const Dims& a, const Dims& b);
/// The flat index into a tensor of shape `in` (right-aligned, broadcast against `out`) of output element `flat`.
std::size_t broadcast_index(const Dims& in, const Dims& out, std::size_t flat);
/// An axis attribute/value normalised to 0..rank−1; none when out of range.
std::optional<std::size_t> normalise_axis(std::int64_t axis, std::size_t rank);
std::int64_t int_attribute(const Node& n, const std::string& key, std::int64_t fallback);
std::string dims_text(const Dims& dims);
/// Values read as dimensions: each in 0..kMaxDimension, else an error naming `what`.
Dims dims_from(Evaluator& e, const Node& n, const std::vector<std::int64_t>& values, const char* what);

}  // namespace ecosim::onnx_import
