// The multi-node patterns of exported graphs, each counted as the zoo's layer: softmax attention
// (MatMul(Q, Kᵀ) → scale → mask → Softmax → MatMul(·, V), scale and mask optional, either order; the mask an Add or
// a Where selecting a hiding fill value, causal when it is a constant hiding exactly the later keys), GELU in its
// erf form (x/√2 → Erf → +1 → ·x → ·0.5), LayerNorm decomposed (ReduceMean, Sub, Pow 2, ReduceMean, Add ε, Sqrt,
// Div, Mul γ, Add β) and a Linear layer exported as MatMul + bias Add.
#include <cmath>

#include "ecosim/ops_counter/checked.hpp"
#include "onnx_convert.hpp"

namespace ecosim::onnx_import {

namespace {

/// Walks a chain of single-consumer nodes from a starting node.
struct Chain {
  const Context& c;
  std::vector<std::size_t> nodes;

  const Node& last() const { return c.node(nodes.back()); }
  /// Appends the only reader of the last node's output when its op is `op`.
  bool next(std::string_view op) {
    if (last().outputs.empty()) return false;
    const auto k = c.sole_consumer(last().outputs[0]);
    if (!k || c.node(*k).op != op) return false;
    nodes.push_back(*k);
    return true;
  }
  /// The input of the last node other than the previous node's output.
  const std::string& other_input() const {
    const Node& n = last();
    const std::string& prev = c.node(nodes[nodes.size() - 2]).outputs[0];
    return n.inputs.size() == 2 && n.inputs[0] == prev ? n.inputs[1] : n.inputs[0];
  }
  bool other_is_scalar(double value) const {
    const auto v = c.scalar(other_input());
    return v && std::abs(*v - value) <= 1e-3 * std::abs(value);
  }
};

bool binary(const Node& n) { return n.inputs.size() == 2; }

/// The last axis of a reduction/normalisation given by `key` (or `fallback` when absent), for a tensor of rank r.
bool over_last_axis(const Node& n, const std::string& key, std::size_t rank, std::int64_t fallback) {
  const auto it = n.ints.find(key);
  const std::vector<std::int64_t> axes = it == n.ints.end() ? std::vector<std::int64_t>{fallback} : it->second;
  return axes.size() == 1 && (axes[0] == -1 || axes[0] == static_cast<std::int64_t>(rank) - 1);
}

/// Whether a block's mask hides exactly the later keys.
enum class Causality : std::uint8_t { no, yes, unknown };

/// The mask `tensor` of a scores tensor of shape `scores`: causal in the sense of `flag` when a constant whose
/// trailing dims are the scores' queries × keys (not broadcast along them); unknown when a constant stored as
/// external data (its values never read).
Causality mask_causality(const Context& c, const std::string& tensor, const std::vector<std::uint64_t>& scores,
                         bool Tensor::*flag) {
  const Tensor* t = c.tensor(tensor);
  if (!t || !t->constant) return Causality::no;
  if (t->external) return Causality::unknown;
  if (!(t->*flag) || !t->dims || t->dims->size() < 2 || scores.size() < 2) return Causality::no;
  const auto& d = *t->dims;
  return d[d.size() - 2] == scores[scores.size() - 2] && d.back() == scores.back() ? Causality::yes : Causality::no;
}

/// Where(cond, scores, fill) or Where(cond, fill, scores), the last chain node, with a constant fill that hides
/// a score: the mask as a selection; causal when cond keeps exactly the attended (resp. drops the masked) keys.
std::optional<Causality> where_mask(const Context& c, const Chain& chain, const std::vector<std::uint64_t>& scores) {
  const Node& n = chain.last();
  const std::string& prev = c.node(chain.nodes[chain.nodes.size() - 2]).outputs[0];
  if (n.inputs.size() != 3 || (n.inputs[1] == prev) == (n.inputs[2] == prev)) return std::nullopt;
  const bool kept_second = n.inputs[1] == prev;
  const auto fill = c.scalar(kept_second ? n.inputs[2] : n.inputs[1]);
  if (!fill || *fill > kMaskedBelow) return std::nullopt;
  return mask_causality(c, n.inputs[0], scores, kept_second ? &Tensor::causal_keep : &Tensor::causal_drop);
}

std::optional<Match> attention(const Context& c, std::size_t i) {
  const Node& scores = c.node(i);
  if (scores.op != "MatMul" || !binary(scores) || c.constant(scores.inputs[0]) || c.constant(scores.inputs[1]) ||
      scores.outputs.empty() || !c.has_dims(scores.outputs[0]))
    return std::nullopt;
  const std::vector<std::uint64_t>& score_dims = c.dims(scores.outputs[0], scores);
  Chain chain{c, {i}};
  bool scaled = false, masked = false, select = false;
  Causality causal = Causality::no;
  while (!chain.next("Softmax")) {
    if (!scaled && (chain.next("Mul") || chain.next("Div"))) {
      if (!binary(chain.last()) || !c.scalar(chain.other_input())) return std::nullopt;
      scaled = true;
    } else if (!masked && chain.next("Add")) {
      if (!binary(chain.last())) return std::nullopt;
      masked = true;
      causal = mask_causality(c, chain.other_input(), score_dims, &Tensor::causal_additive);
    } else if (!masked && chain.next("Where")) {
      const auto where = where_mask(c, chain, score_dims);
      if (!where) return std::nullopt;
      masked = select = true;
      causal = *where;
    } else {
      return std::nullopt;
    }
  }
  const Node& softmax = chain.last();
  if (!chain.next("MatMul")) return std::nullopt;
  const Node& context = chain.last();
  if (!binary(context) || context.inputs[0] != softmax.outputs[0] || c.constant(context.inputs[1])) return std::nullopt;
  for (const std::string& t : {scores.inputs[0], scores.outputs[0], context.inputs[1]})
    if (!c.has_dims(t)) return std::nullopt;
  const auto& q = c.dims(scores.inputs[0], scores);
  const auto& s = c.dims(scores.outputs[0], scores);
  const auto& v = c.dims(context.inputs[1], context);
  if (q.size() < 2 || s.size() != q.size() || v.size() != q.size() || v.back() != q.back() ||
      !over_last_axis(softmax, "axis", s.size(), -1))
    return std::nullopt;
  SoftmaxAttention a{.queries = s[s.size() - 2],
                     .keys = s.back(),
                     .head_dim = q.back(),
                     .scaled = scaled,
                     .masked = masked,
                     .mask_select = select,
                     .causal = causal == Causality::yes,
                     .mask_unknown = causal == Causality::unknown};
  // leading dims: batch × heads (rank 4), batch (rank 3); more: all but the last are the batch
  for (std::size_t d = 0; d + 2 < s.size(); ++d) {
    if (d + 3 == s.size() && s.size() >= 4)
      a.heads = s[d];
    else
      a.batch = checked_mul(a.batch, s[d]);
  }
  return Match{chain.nodes, Layer{"", a}, true};
}

std::optional<Match> gelu(const Context& c, std::size_t i) {
  const Node& first = c.node(i);
  if (first.op != "Div" || !binary(first)) return std::nullopt;
  Chain chain{c, {i}};
  if (!c.scalar(first.inputs[1]) || std::abs(*c.scalar(first.inputs[1]) - std::sqrt(2.0)) > 1e-3) return std::nullopt;
  if (!chain.next("Erf") || !chain.next("Add") || !chain.other_is_scalar(1.0) || !chain.next("Mul") ||
      chain.other_input() != first.inputs[0] || !chain.next("Mul") || !chain.other_is_scalar(0.5))
    return std::nullopt;
  if (!c.has_dims(first.inputs[0])) return std::nullopt;
  return Match{chain.nodes, Layer{"", Activation{ActivationFunc::gelu, c.elements(first.inputs[0], first)}}};
}

std::optional<Match> decomposed_layernorm(const Context& c, std::size_t i) {
  const Node& mean = c.node(i);
  if (mean.op != "ReduceMean" || mean.inputs.empty() || !c.has_dims(mean.inputs[0])) return std::nullopt;
  const auto& x = c.dims(mean.inputs[0], mean);
  if (x.empty()) return std::nullopt;
  Chain chain{c, {i}};
  if (!over_last_axis(mean, "axes", x.size(), 0) || !chain.next("Sub") || !binary(chain.last()) ||
      chain.last().inputs[0] != mean.inputs[0])
    return std::nullopt;
  if (chain.last().outputs.empty()) return std::nullopt;
  const std::string centred = chain.last().outputs[0];
  const std::vector<std::size_t>& readers = c.consumers(centred);
  if (readers.size() != 2) return std::nullopt;
  chain.nodes.push_back(c.node(readers[0]).op == "Pow" ? readers[0] : readers[1]);
  if (chain.last().op != "Pow" || !binary(chain.last()) || !c.scalar(chain.last().inputs[1]) ||
      *c.scalar(chain.last().inputs[1]) != 2.0 || !chain.next("ReduceMean") ||
      !over_last_axis(chain.last(), "axes", x.size(), 0) || !chain.next("Add") || !c.scalar(chain.other_input()) ||
      !chain.next("Sqrt") || !chain.next("Div") || !binary(chain.last()) || chain.last().inputs[0] != centred ||
      !chain.next("Mul") || !c.constant(chain.other_input()) || !chain.next("Add") || !c.constant(chain.other_input()))
    return std::nullopt;
  const std::uint64_t width = x.back(), elements = c.elements(mean.inputs[0], mean);
  return Match{chain.nodes, Layer{"", LayerNorm{elements / width, width}}};
}

std::optional<Match> linear_with_bias(const Context& c, std::size_t i) {
  const Node& matmul = c.node(i);
  if (matmul.op != "MatMul" || !binary(matmul) || !c.constant(matmul.inputs[1]) || !c.has_dims(matmul.inputs[0]))
    return std::nullopt;
  const auto& w = c.dims(matmul.inputs[1], matmul);
  Chain chain{c, {i}};
  if (w.size() != 2 || !chain.next("Add") || !binary(chain.last()) || !c.constant(chain.other_input()) ||
      !c.has_dims(chain.other_input()) || c.dims(chain.other_input(), matmul) != std::vector<std::uint64_t>{w[1]})
    return std::nullopt;
  const std::uint64_t tokens = c.elements(matmul.inputs[0], matmul) / w[0];
  return Match{chain.nodes, Layer{"", Linear{.tokens = tokens, .in = w[0], .out = w[1], .bias = true}}};
}

}  // namespace

std::optional<Match> match_pattern(const Context& c, std::size_t i) {
  for (auto pattern : {attention, gelu, decomposed_layernorm, linear_with_bias})
    if (auto m = pattern(c, i)) return m;
  return std::nullopt;
}

}  // namespace ecosim::onnx_import
