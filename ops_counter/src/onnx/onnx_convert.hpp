// Internal: turning an onnx_import::Graph into layers — the shared view of the graph (shapes, consumers,
// constants), the multi-node patterns (attention, GELU, decomposed LayerNorm, Linear with bias) and the one-node
// rules.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ecosim/ops_counter/onnx_model.hpp"
#include "onnx_graph.hpp"

namespace ecosim::onnx_import {

class Context {
 public:
  Context(const Graph& graph, const std::string& origin);

  const Graph& graph() const { return graph_; }
  const Node& node(std::size_t i) const { return graph_.nodes[i]; }
  /// The static shape of `tensor`, read by or written by `at`; throws ecosim::Error when unknown.
  const std::vector<std::uint64_t>& dims(const std::string& tensor, const Node& at) const;
  std::uint64_t elements(const std::string& tensor, const Node& at) const;
  bool has_dims(const std::string& tensor) const { return dims_.contains(tensor); }
  bool constant(const std::string& tensor) const;
  /// The graph's record of `tensor` (none for a tensor the graph does not declare).
  const Tensor* tensor(const std::string& name) const;
  /// The value of a one-element constant, or of a one-element tensor the shape evaluator folded.
  std::optional<double> scalar(const std::string& tensor) const;
  /// The index of the only node reading `tensor` (none when several or none read it).
  std::optional<std::size_t> sole_consumer(const std::string& tensor) const;
  const std::vector<std::size_t>& consumers(const std::string& tensor) const;
  /// The index of the node writing `tensor` (none for a graph input or a weight).
  std::optional<std::size_t> producer(const std::string& tensor) const;
  [[noreturn]] void fail(const Node& at, const std::string& what) const;

 private:
  const Graph& graph_;
  const std::string& origin_;
  std::map<std::string, std::vector<std::uint64_t>> dims_;
  std::map<std::string, std::vector<std::size_t>> consumers_;
  std::map<std::string, std::size_t> producers_;
};

/// Nodes matched together as one layer (the first node is where the pattern starts).
struct Match {
  std::vector<std::size_t> nodes;
  Layer layer;
  bool attention = false;
  /// An attention block's Q or Kᵀ scaled by a scalar before the scores (nn.MultiheadAttention's q / √E, PyTorch
  /// 2's decomposed SDPA's √scale on each): one-node layers of their own, part of the block's cost when swapped.
  std::vector<std::size_t> operand_scales = {};
};

/// Whether a block's mask hides exactly the later keys.
enum class Causality : std::uint8_t { no, yes, unknown };

/// The mask `tensor` of a scores tensor of shape `scores`: causal in the sense of `flag` when a constant (or a
/// tensor the shape evaluator folded) whose trailing dims are the scores' queries × keys (not broadcast along
/// them); unknown when a constant stored as external data (its values never read).
Causality mask_causality(const Context& c, const std::string& tensor, const std::vector<std::uint64_t>& scores,
                         bool Tensor::*flag);

/// Opset 23's Attention node `i` as a found attention block (onnx_attention_op.cpp), if node `i` is one.
std::optional<Match> attention_op(const Context& c, std::size_t i);

/// The pattern starting at node `i` (attention block — a decomposed one or opset 23's Attention node —, GELU,
/// decomposed LayerNorm, Linear + bias), if any.
std::optional<Match> match_pattern(const Context& c, std::size_t i);

/// Whether Softmax node `i` (or the Exp of a softmax written out: exp / its ReduceSum, or log_softmax's exp) is
/// attention's: its probabilities (through Casts) multiply an activation, MatMul(·, V) or an Einsum. One that no
/// pattern matched is reported (OnnxModel::unmatched_attention).
bool attention_like_softmax(const Context& c, std::size_t i);

/// Whether `tensor` (through casts and products by a scalar ≥ 1) is a causal additive mask (mask_causality) plus
/// another term whose values the graph computes at run time: a bias merged into the mask before the scores (T5's
/// decoder adds its relative-position bias, gathered from a learned table, to its causal mask), taken to move the
/// attended scores only. A term of known values is not one: the sum's own values tell (a band, an unmasking).
bool causal_plus_bias(const Context& c, const std::string& tensor, const std::vector<std::uint64_t>& scores);

/// A two-operand Einsum with an explicit output and no ellipsis as a batched GEMM: batch = the indices in both
/// operands and the output, m (n) = those of the first (second) operand alone, k = those of both summed; none for
/// other forms (an index summed within one operand), which count as an unknown op.
std::optional<Matmul> einsum_gemm(const Context& c, const Node& n);

/// Elements of the floating-point graph initializers of ≥ 2 elements that node `n`'s layer, an elementwise op or a
/// data movement, reads directly — a table gathered or expanded (its input 0), a token concatenated, an embedding
/// or a bias added, a scale multiplied: its Layer::table_parameters. `alias` maps a view's output to the
/// initializer it shows; each initializer is counted once (`counted`). (A graph does not tell its trained tables from
/// its other constants: masks and folded values read so are counted too.)
std::uint64_t read_parameters(const Context& c, const Node& n, const Layer& layer,
                              const std::map<std::string, std::string>& alias, std::set<std::string>& counted);

/// A floating-point initializer of ≥ 2 elements (a learned table, as read_parameters counts them): its name and size.
struct Table {
  std::string name;
  std::uint64_t elements;
};
/// The table operand `input` shows (directly or through `alias`); none for an activation, a scalar or a non-float.
std::optional<Table> learned_table(const Context& c, const std::string& input,
                                   const std::map<std::string, std::string>& alias);
/// Bit i for each of node `n`'s first two operands that shows a learned table (Elementwise::learned_operands).
unsigned learned_operands(const Context& c, const Node& n, const std::map<std::string, std::string>& alias);

/// Of a Linear, convolution or normalisation layer made of `nodes`, the elements of the learned tables it reads
/// (its weights, bias, γ, β) that an earlier layer already claimed (`claimed`, updated): Layer::shared_parameters.
std::uint64_t shared_parameters(const Context& c, const std::vector<const Node*>& nodes, const Layer& layer,
                                const std::map<std::string, std::string>& alias, std::set<std::string>& claimed);

/// Whether Reshape or Flatten node `reshape`, reading a Transpose's output, copies it in PyTorch: a transposed
/// view reshaped across dims it moved apart (`permute(0, 2, 3, 1).flatten(1)`; splitting a dim, or merging dims
/// still adjacent in memory, is a view). False for any other input, or where a shape is unknown.
bool reshape_copies(const Context& c, const Node& reshape);

/// Whether Dropout node `n` drops anything: a training export's (training_mode a constant true) with a ratio above
/// 0 (absent: 0.5); an inference export's is the identity; a mode or ratio that is not a constant is an Error.
bool dropping(const Context& c, const Node& n);

/// One node's layer: a layer, no layer (views: Reshape, Squeeze, Constant, ...), or unknown.
struct NodeLayer {
  bool known = true;
  std::optional<Layer> layer;
};
NodeLayer node_layer(const Context& c, const Node& n);

}  // namespace ecosim::onnx_import
