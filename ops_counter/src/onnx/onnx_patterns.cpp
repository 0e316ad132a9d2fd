// The multi-node patterns of exported graphs, each counted as the zoo's layer: softmax attention
// (MatMul(Q, Kᵀ) → scale → mask → Softmax → MatMul(·, V); the scale a Mul or Div by a constant or by a scalar the
// shape evaluator folded, the mask an Add or a Where selecting a hiding fill value, causal when a constant or
// folded tensor hiding exactly the later keys, a second Add a bias (Swin's relative positions); scale, mask and
// bias optional, in any order, with Reshapes and Casts between them; K/V heads counted as K broadcasts or before a
// grouped-query Expand/Tile; Q or Kᵀ scaled by a scalar before the scores noted as the block's), GELU in its erf form
// (x/√2 → Erf → +1 → ·x → ·0.5), SiLU (Sigmoid → ·x), LayerNorm decomposed (ReduceMean, Sub, Pow 2, ReduceMean, Add ε,
// Sqrt, Div, then Mul γ, Add β when affine; over the last dims) and a Linear layer exported as MatMul + bias Add.
#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

#include "ecosim/ops_counter/checked.hpp"
#include "onnx_convert.hpp"

namespace ecosim::onnx_import {

namespace {

/// Ops that only reshape or cast a tensor: no arithmetic on it.
constexpr std::string_view kViewOps[] = {"Reshape", "Squeeze", "Unsqueeze", "Cast"};
bool view_op(std::string_view op) {
  return std::find(std::begin(kViewOps), std::end(kViewOps), op) != std::end(kViewOps);
}

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
  /// Appends the readers of the last node's output while they are views or casts (kViewOps: no arithmetic on the
  /// scores).
  void skip_views() {
    while (std::any_of(std::begin(kViewOps), std::end(kViewOps), [this](std::string_view op) { return next(op); })) {}
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

/// How many trailing axes of a rank-r tensor a reduction/normalisation given by `key` (or `fallback` when absent)
/// spans (nn.LayerNorm over its last dims): 0 unless its axes are the last ones, each once.
std::size_t trailing_axes(const Node& n, const std::string& key, std::size_t rank, std::int64_t fallback) {
  const auto it = n.ints.find(key);
  std::vector<std::int64_t> axes = it == n.ints.end() ? std::vector<std::int64_t>{fallback} : it->second;
  const auto r = static_cast<std::int64_t>(rank);
  for (std::int64_t& a : axes) {
    if (a < -r || a >= r) return 0;
    if (a < 0) a += r;
  }
  std::sort(axes.begin(), axes.end());
  for (std::size_t j = 0; j < axes.size(); ++j)
    if (axes[j] != r - static_cast<std::int64_t>(axes.size() - j)) return 0;
  return axes.size();
}

/// The last axis alone, as trailing_axes.
bool over_last_axis(const Node& n, const std::string& key, std::size_t rank, std::int64_t fallback) {
  return trailing_axes(n, key, rank, fallback) == 1;
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

/// The heads of the K operand `k` (of `heads` heads; the scores' heads axis `heads_axis` from their end, 0 when
/// the heads are merged into the batch) before a grouped-query expansion: its own extent on that axis where
/// MatMul broadcasts it over the heads (one K head unsqueezed for all: multi-query attention), else walking back
/// through views, transposes and a scale to an Expand or Tile, the heads its input holds; `heads` when there is none.
std::uint64_t kv_heads(const Context& c, const std::string& k, const Node& at, std::uint64_t heads,
                       std::size_t heads_axis) {
  const auto& kd = c.dims(k, at);
  const std::uint64_t own = heads_axis == 0 ? heads : kd.size() < heads_axis ? 1 : kd[kd.size() - heads_axis];
  if (own < heads && own && heads % own == 0) return own;
  std::string t = k;
  for (int step = 0; step < 8; ++step) {
    const auto p = c.producer(t);
    if (!p) break;
    const Node& n = c.node(*p);
    if (n.inputs.empty() || n.inputs[0].empty() || !c.has_dims(n.inputs[0])) break;
    if (n.op == "Expand" || n.op == "Tile") {
      const std::uint64_t before = c.elements(n.inputs[0], at), after = c.elements(k, at);
      if (after % before || heads % (after / before)) break;
      return heads / (after / before);
    }
    if (n.op != "Transpose" && n.op != "Mul" && !view_op(n.op)) break;
    t = n.inputs[0];
  }
  return heads;
}

/// The heads merged into the batch of rank-3 scores (nn.MultiheadAttention's bmm over bsz·heads): walking back
/// from Q through transposes, a scale, Reshapes keeping head_dim last (einops' "(b h) n d" merge) and selections
/// keeping the last dim (a fused qkv's Gather or Split of q), the Reshape that split a wider last dim into
/// head_dim chunks: their number less what the selections left out (k and v); 1 when none (a Reshape ending in
/// another width: single-head attention over a feature map).
std::uint64_t merged_heads(const Context& c, const std::string& q, std::uint64_t head_dim, std::uint64_t groups) {
  constexpr std::string_view kPassing[] = {"Transpose", "Mul", "Div", "Cast", "Squeeze", "Unsqueeze"};
  constexpr std::string_view kSelecting[] = {"Gather", "Split", "Slice"};
  const auto in = [](std::string_view op, const auto& ops) {
    return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
  };
  std::uint64_t selected = 1;  // the share of the walked tensor the selections kept, inverted
  std::string t = q;
  for (int step = 0; step < 8 && head_dim; ++step) {
    const auto p = c.producer(t);
    if (!p) break;
    const Node& n = c.node(*p);
    if (n.inputs.empty() || n.inputs[0].empty() || !c.has_dims(n.inputs[0]) || !c.has_dims(t)) break;
    const auto& x = c.dims(n.inputs[0], n);
    const auto& y = c.dims(t, n);
    if (x.empty() || y.empty()) break;
    if (n.op == "Reshape") {
      if (y.back() != head_dim || x.back() % head_dim) break;
      if (x.back() > head_dim) {  // the split into head_dim chunks
        const std::uint64_t chunks = x.back() / head_dim;
        if (chunks % selected || groups % (chunks / selected)) break;
        return chunks / selected;
      }
    } else if (in(n.op, kSelecting) && x.back() == y.back()) {
      const std::uint64_t before = c.elements(n.inputs[0], n), after = c.elements(t, n);
      if (after == 0 || before % after) break;
      selected = checked_mul(selected, before / after);
    } else if (!in(n.op, kPassing)) {
      break;
    }
    t = n.inputs[0];
  }
  return 1;
}

/// The node scaling the scores' operand `t` by a scalar (Mul, or Div by it) before the scores, reached through
/// views and transposes; every tensor on the way, the scaled one included, read by nothing else. None otherwise.
std::optional<std::size_t> operand_scale(const Context& c, std::string t) {
  for (int step = 0; step < 8; ++step) {
    const auto p = c.producer(t);
    if (!p || c.consumers(t).size() != 1) return std::nullopt;
    const Node& n = c.node(*p);
    if ((n.op == "Mul" || n.op == "Div") && binary(n)) {
      const bool first_scalar = c.scalar(n.inputs[0]).has_value(), second_scalar = c.scalar(n.inputs[1]).has_value();
      if (first_scalar == second_scalar || (n.op == "Div" && first_scalar)) return std::nullopt;
      return *p;
    }
    if ((n.op != "Transpose" && !view_op(n.op)) || n.inputs.empty()) return std::nullopt;
    t = n.inputs[0];
  }
  return std::nullopt;
}

/// Whether the keys or values operand `t` of one query's attention is a KV cache grown by this step: reached
/// through views, transposes, casts and the Expand or Tile of a grouped-query repeat (Hugging Face's repeat_kv
/// after the cache update) from a Concat along its `keys` axis of exactly two tensors — a graph input
/// (the cache held so far) and one key computed in this step (the step's own token) — a decode step, its query
/// the newest of the keys. Two inputs concatenated, a constant (a Perceiver's latents) or a block of several new
/// keys are not.
bool grown_cache(const Context& c, std::string t, std::uint64_t keys) {
  for (int step = 0; step < 8; ++step) {
    const auto p = c.producer(t);
    if (!p) return false;
    const Node& n = c.node(*p);
    if (n.op == "Concat") {
      if (n.inputs.size() != 2 || n.outputs.empty() || !c.has_dims(n.outputs[0])) return false;
      const auto& out = c.dims(n.outputs[0], n);
      const auto found = n.ints.find("axis");  // required by ONNX; negative counts from the end
      const std::int64_t rank = static_cast<std::int64_t>(out.size()),
                         axis = found == n.ints.end() || found->second.empty() ? rank : found->second[0];
      if (axis < -rank || axis >= rank) return false;
      const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
      const auto held = [&](const std::string& x) { return !x.empty() && !c.producer(x) && !c.constant(x); };
      const auto new_key = [&](const std::string& x) {
        return !x.empty() && c.producer(x) && c.has_dims(x) && c.dims(x, n).size() == out.size() &&
               c.dims(x, n)[a] == 1;
      };
      return out[a] == keys &&
             ((held(n.inputs[0]) && new_key(n.inputs[1])) || (new_key(n.inputs[0]) && held(n.inputs[1])));
    }
    const bool passes_on = n.op == "Transpose" || n.op == "Cast" || n.op == "Expand" || n.op == "Tile" || view_op(n.op);
    if (!passes_on || n.inputs.empty()) return false;
    t = n.inputs[0];
  }
  return false;
}

std::optional<Match> attention(const Context& c, std::size_t i) {
  const Node& scores = c.node(i);
  if (scores.op != "MatMul" || !binary(scores) || c.constant(scores.inputs[0]) || c.constant(scores.inputs[1]) ||
      scores.outputs.empty() || !c.has_dims(scores.outputs[0]))
    return std::nullopt;
  const std::vector<std::uint64_t>& score_dims = c.dims(scores.outputs[0], scores);
  Chain chain{c, {i}};
  bool scaled = false, select = false;
  int terms = 0;  // additive terms: the mask, then a bias (Swin's relative positions)
  Causality causal = Causality::no;
  auto note = [&causal](Causality found) {
    if (found != Causality::no && causal != Causality::yes) causal = found;
  };
  for (chain.skip_views(); !chain.next("Softmax"); chain.skip_views()) {
    if (!scaled && (chain.next("Mul") || chain.next("Div"))) {
      if (!binary(chain.last()) || !c.scalar(chain.other_input())) return std::nullopt;
      scaled = true;
    } else if (terms < 2 && chain.next("Add")) {
      if (!binary(chain.last())) return std::nullopt;
      ++terms;
      const std::string& term = chain.other_input();
      const Causality found = mask_causality(c, term, score_dims, &Tensor::causal_additive);
      if (found == Causality::no && terms == 1 && causal_plus_bias(c, term, score_dims)) {
        ++terms;  // a bias merged into the causal mask before the scores (T5's decoder): causal, and biased
        note(Causality::yes);
      } else {
        note(found);
      }
    } else if (terms < 2 && !select && chain.next("Where")) {
      const auto where = where_mask(c, chain, score_dims);
      if (!where) return std::nullopt;
      ++terms;
      select = true;
      note(*where);
    } else {
      return std::nullopt;
    }
  }
  const Node& softmax = chain.last();
  bool probs_dropout = false;  // a training export's dropout on the probabilities
  while (chain.next("Cast") || chain.next("Dropout"))
    probs_dropout = probs_dropout || (chain.last().op == "Dropout" && dropping(c, chain.last()));
  if (chain.last().outputs.empty() || softmax.inputs.empty() || !c.has_dims(softmax.inputs[0])) return std::nullopt;
  const std::string& probabilities = chain.last().outputs[0];
  if (!chain.next("MatMul")) return std::nullopt;
  const Node& context = chain.last();
  if (!binary(context) || context.inputs[0] != probabilities || c.constant(context.inputs[1])) return std::nullopt;
  for (const std::string& t : {scores.inputs[0], scores.inputs[1], scores.outputs[0], context.inputs[1]})
    if (!c.has_dims(t)) return std::nullopt;
  const auto& q = c.dims(scores.inputs[0], scores);
  const auto& s = c.dims(scores.outputs[0], scores);
  const auto& v = c.dims(context.inputs[1], context);
  if (q.size() < 2 || s.size() != q.size() || v.size() != q.size() || v.back() != q.back() ||
      c.dims(softmax.inputs[0], softmax).empty() ||
      !over_last_axis(softmax, "axis", c.dims(softmax.inputs[0], softmax).size(), -1) ||
      c.dims(softmax.inputs[0], softmax).back() != s.back())
    return std::nullopt;
  SoftmaxAttention a{.queries = s[s.size() - 2],
                     .keys = s.back(),
                     .head_dim = q.back(),
                     .scaled = scaled,
                     .masked = terms > 0,
                     .biased = terms == 2,
                     .mask_select = select,
                     .causal = causal == Causality::yes,
                     .mask_unknown = causal == Causality::unknown,
                     .probs_dropout = probs_dropout};
  // leading dims: batch × heads (rank 4), batch · heads merged (rank 3); more: all but the last are the batch
  for (std::size_t d = 0; d + 2 < s.size(); ++d) {
    if (d + 3 == s.size() && s.size() >= 4)
      a.heads = s[d];
    else
      a.batch = checked_mul(a.batch, s[d]);
  }
  if (s.size() == 3) {
    a.heads = merged_heads(c, scores.inputs[0], a.head_dim, a.batch);
    a.batch /= a.heads;
  }
  a.kv_heads = kv_heads(c, scores.inputs[1], scores, a.heads, s.size() >= 4 ? 3 : 0);
  // torch's matmul folds the leading dims into one batch, a view of its operands unless two of them exceed 1
  // (several heads of a batch: a transposed layout it copies)
  a.operand_views = std::count_if(s.begin(), s.end() - 2, [](std::uint64_t d) { return d > 1; }) <= 1;
  // One query, unmasked, over a KV cache its step grew by one key: a decode step, as causal attention of the
  // newest token (a variant's decode form then folds that token onto its state, rather than rebuilding it over
  // every key).
  if (terms == 0 && a.queries == 1 && a.keys > 1 && grown_cache(c, scores.inputs[1], a.keys) &&
      grown_cache(c, context.inputs[1], a.keys))
    a.causal = true;
  Match m{chain.nodes, Layer{"", a}, true};
  for (const std::string& operand : {scores.inputs[0], scores.inputs[1]})
    if (const auto scale = operand_scale(c, operand)) m.operand_scales.push_back(*scale);
  return m;
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

/// GELU's tanh form as PyTorch exports F.gelu(x, approximate="tanh"): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x·x·x))),
/// starting at x·x.
std::optional<Match> gelu_tanh(const Context& c, std::size_t i) {
  const Node& first = c.node(i);
  if (first.op != "Mul" || !binary(first) || first.inputs[0] != first.inputs[1] || !c.has_dims(first.inputs[0]))
    return std::nullopt;
  const std::string& x = first.inputs[0];
  Chain chain{c, {i}};
  if (!chain.next("Mul") || chain.other_input() != x || !chain.next("Mul") || !chain.other_is_scalar(0.044715) ||
      !chain.next("Add") || chain.other_input() != x || !chain.next("Mul") ||
      !chain.other_is_scalar(std::sqrt(2.0 / std::acos(-1.0))) || !chain.next("Tanh") || !chain.next("Add") ||
      !chain.other_is_scalar(1.0) || !chain.next("Mul") || chain.other_input() != x || !chain.next("Mul") ||
      !chain.other_is_scalar(0.5))
    return std::nullopt;
  return Match{chain.nodes, Layer{"", Activation{ActivationFunc::gelu, c.elements(x, first)}}};
}

/// SiLU (Swish) as PyTorch exports F.silu(x) before opset 24: Sigmoid(x) → Mul(·, x) — one activation keeping
/// its input, as torch's SiLU does (not the sigmoid's output and a product's two operands).
std::optional<Match> silu(const Context& c, std::size_t i) {
  const Node& first = c.node(i);
  if (first.op != "Sigmoid" || first.inputs.size() != 1 || !c.has_dims(first.inputs[0])) return std::nullopt;
  Chain chain{c, {i}};
  if (!chain.next("Mul") || !binary(chain.last()) || chain.other_input() != first.inputs[0] ||
      !c.has_dims(chain.last().outputs[0]) ||
      c.dims(chain.last().outputs[0], chain.last()) != c.dims(first.inputs[0], first))
    return std::nullopt;
  return Match{chain.nodes, Layer{"", Activation{ActivationFunc::silu, c.elements(first.inputs[0], first)}}};
}

std::optional<Match> decomposed_layernorm(const Context& c, std::size_t i) {
  const Node& mean = c.node(i);
  if (mean.op != "ReduceMean" || mean.inputs.empty() || !c.has_dims(mean.inputs[0])) return std::nullopt;
  const auto& x = c.dims(mean.inputs[0], mean);
  if (x.empty()) return std::nullopt;
  Chain chain{c, {i}};
  const std::size_t axes = trailing_axes(mean, "axes", x.size(), 0);  // nn.LayerNorm over its last `axes` dims
  if (axes == 0 || !chain.next("Sub") || !binary(chain.last()) || chain.last().inputs[0] != mean.inputs[0])
    return std::nullopt;
  if (chain.last().outputs.empty()) return std::nullopt;
  const std::string centred = chain.last().outputs[0];
  const std::vector<std::size_t>& readers = c.consumers(centred);
  if (readers.size() != 2) return std::nullopt;
  chain.nodes.push_back(c.node(readers[0]).op == "Pow" ? readers[0] : readers[1]);
  if (chain.last().op != "Pow" || !binary(chain.last()) || !c.scalar(chain.last().inputs[1]) ||
      *c.scalar(chain.last().inputs[1]) != 2.0 || !chain.next("ReduceMean") ||
      trailing_axes(chain.last(), "axes", x.size(), 0) != axes || !chain.next("Add") ||
      !c.scalar(chain.other_input()) || !chain.next("Sqrt") || !chain.next("Div") || !binary(chain.last()) ||
      chain.last().inputs[0] != centred)
    return std::nullopt;
  // affine: then Mul γ, Add β (nn.LayerNorm(elementwise_affine=False) stops at the Div)
  Chain scaled{c, chain.nodes};
  const bool affine =
      scaled.next("Mul") && c.constant(scaled.other_input()) && scaled.next("Add") && c.constant(scaled.other_input());
  if (affine) chain.nodes = scaled.nodes;
  std::uint64_t width = 1;
  for (std::size_t d = x.size() - axes; d < x.size(); ++d) width = checked_mul(width, x[d]);
  const std::uint64_t elements = c.elements(mean.inputs[0], mean);
  return Match{chain.nodes, Layer{"", LayerNorm{elements / width, width, affine}}};
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

/// mask_causality of a constant (or folded) mask alone.
Causality known_causality(const Context& c, const std::string& tensor, const std::vector<std::uint64_t>& scores,
                          bool Tensor::*flag) {
  const Tensor* t = c.tensor(tensor);
  if (!t || (!t->constant && !t->values && !t->band)) return Causality::no;
  if (t->external) return Causality::unknown;
  if (!(t->*flag) || !t->dims || t->dims->size() < 2 || scores.size() < 2) return Causality::no;
  const auto& d = *t->dims;
  return d[d.size() - 2] == scores[scores.size() - 2] && d.back() == scores.back() ? Causality::yes : Causality::no;
}

/// Whether `tensor` is the same for every query (a padding mask's term, varying along the keys only) as the graph
/// computes it: a scalar, a tensor whose query axis (the second last) is 1, or one made from such tensors by
/// elementwise ops, casts and expansions, within `depth` producers.
bool key_only(const Context& c, const std::string& tensor, int depth) {
  if (c.scalar(tensor)) return true;
  if (const Tensor* t = c.tensor(tensor); t && t->dims && t->dims->size() >= 2 && (*t->dims)[t->dims->size() - 2] == 1)
    return true;
  const auto p = c.producer(tensor);
  if (!p || depth == 0) return false;
  const Node& n = c.node(*p);
  static const std::set<std::string_view> elementwise = {"Add", "Sub", "Mul", "Div", "Neg", "Not", "Equal", "Where"};
  if (n.inputs.empty()) return false;
  // (not an Unsqueeze: it may make the query axis, [1,1,N] to [1,1,N,1])
  if (n.op == "Expand" || n.op == "Cast") return key_only(c, n.inputs[0], depth - 1);
  return elementwise.contains(n.op) && std::all_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& x) {
           return !x.empty() && key_only(c, x, depth - 1);
         });
}

/// Whether `tensor` reaches `target` through casts alone.
bool cast_of(const Context& c, std::string tensor, const std::string& target) {
  for (int step = 0; step < 4 && tensor != target; ++step) {
    const auto p = c.producer(tensor);
    if (!p || c.node(*p).op != "Cast" || c.node(*p).inputs.empty()) return false;
    tensor = c.node(*p).inputs[0];
  }
  return tensor == target;
}

/// Whether a padding term only lowers scores, so that added to a causal mask it unmasks nothing: a scalar ≤ 0, a
/// product with a negative scalar (of a 0/1 indicator: `(1 − attention_mask)·−10⁴`), a selection of such terms, or
/// `masked_fill(x, x ≠ 0, v)` with such a v (Hugging Face's inverted mask: 0 where not filled) — through casts and
/// expansions, within `depth` producers.
bool lowering(const Context& c, const std::string& tensor, int depth) {
  if (const auto v = c.scalar(tensor)) return *v <= 0;
  const auto p = c.producer(tensor);
  if (!p || depth == 0) return false;
  const Node& n = c.node(*p);
  if ((n.op == "Cast" || n.op == "Expand") && !n.inputs.empty()) return lowering(c, n.inputs[0], depth - 1);
  if (n.op == "Mul" && n.inputs.size() == 2)
    return std::any_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& x) {
      const auto v = c.scalar(x);
      return v && *v < 0;
    });
  if (n.op == "Where" && n.inputs.size() == 3)
    return lowering(c, n.inputs[1], depth - 1) &&
           (cast_of(c, n.inputs[0], n.inputs[2]) || lowering(c, n.inputs[2], depth - 1));
  return false;
}

/// `tensor` before the casts and the products by a scalar of at least 1 that make it (torch's baddbmm multiplies
/// the mask by its beta, 1: a masking value stays one, an attended 0 stays 0), within four producers.
std::string unscaled(const Context& c, std::string tensor) {
  for (int step = 0; step < 4; ++step) {
    const auto p = c.producer(tensor);
    if (!p) break;
    const Node& n = c.node(*p);
    if (n.op == "Cast" && !n.inputs.empty()) {
      tensor = n.inputs[0];
      continue;
    }
    if (n.op != "Mul" || n.inputs.size() != 2) break;
    const auto factor = [&](std::size_t i) {
      const auto v = c.scalar(n.inputs[i]);
      return v && *v >= 1;
    };
    if (factor(1))
      tensor = n.inputs[0];
    else if (factor(0))
      tensor = n.inputs[1];
    else
      break;
  }
  return tensor;
}

/// Whether `tensor` holds zeros only, as a constant or a folded tensor (a scalar, its values or a uniform band).
bool zeros(const Context& c, const std::string& tensor) {
  if (const auto v = c.scalar(tensor)) return *v == 0;
  const Tensor* t = c.tensor(tensor);
  if (!t) return false;
  if (t->values) {
    for (std::size_t i = 0; i < t->values->size(); ++i)
      if (t->values->at(i) != 0) return false;
    return true;
  }
  return t->band && t->band->uniform() && t->band->upper == 0;
}

/// An additive mask the graph computes as a causal one plus a term the same for every query that only lowers
/// scores (a padding mask: `causal + (1 − attention_mask)·−10⁴`), a causal one filled with a masking value where
/// such a term says (`masked_fill`), or a masking value selected where a causal condition or a padding one holds
/// (torch's bool masks merged: `Where(causal_drop | padding, −inf, 0)`): causal.
bool causal_with_padding(const Context& c, const std::string& tensor, const std::vector<std::uint64_t>& scores) {
  const std::string mask = unscaled(c, tensor);
  const auto p = c.producer(mask);
  if (!p) return false;
  const Node& n = c.node(*p);
  constexpr int kDepth = 8;
  const auto causal = [&](const std::string& x) {
    return known_causality(c, x, scores, &Tensor::causal_additive) == Causality::yes;
  };
  const auto padding = [&](const std::string& x) { return key_only(c, x, kDepth) && lowering(c, x, kDepth); };
  if (known_causality(c, mask, scores, &Tensor::causal_additive) == Causality::yes) return true;
  if (n.op == "Add" && n.inputs.size() == 2)
    return (causal(n.inputs[0]) && padding(n.inputs[1])) || (causal(n.inputs[1]) && padding(n.inputs[0]));
  const auto fill = n.op == "Where" && n.inputs.size() == 3 ? c.scalar(n.inputs[1]) : std::nullopt;
  if (!fill || *fill > kMaskedBelow) return false;
  if (key_only(c, n.inputs[0], kDepth) && causal(n.inputs[2])) return true;
  // the selection's condition: causal_drop OR a padding condition (through casts), the rest 0
  const auto either = c.producer(unscaled(c, n.inputs[0]));
  if (!zeros(c, n.inputs[2]) || !either || c.node(*either).op != "Or" || c.node(*either).inputs.size() != 2)
    return false;
  const auto& terms = c.node(*either).inputs;
  const auto drops = [&](const std::string& x) {
    return known_causality(c, unscaled(c, x), scores, &Tensor::causal_drop) == Causality::yes;
  };
  return (drops(terms[0]) && key_only(c, terms[1], kDepth)) || (drops(terms[1]) && key_only(c, terms[0], kDepth));
}

}  // namespace

Causality mask_causality(const Context& c, const std::string& tensor, const std::vector<std::uint64_t>& scores,
                         bool Tensor::*flag) {
  const Causality known = known_causality(c, tensor, scores, flag);
  return known == Causality::no && flag == &Tensor::causal_additive && causal_with_padding(c, tensor, scores)
             ? Causality::yes
             : known;
}

/// The probabilities of a softmax written out from an Exp node: exp / ReduceSum(exp) (`e / e.sum(-1, keepdim=True)`)
/// or the Exp of a LogSoftmax (`log_softmax(x).exp()`); none for another Exp.
std::optional<std::string> written_out_softmax(const Context& c, const Node& n) {
  if (n.op != "Exp" || n.inputs.empty() || n.outputs.empty()) return std::nullopt;
  const std::string& e = n.outputs[0];
  if (const auto p = c.producer(n.inputs[0]); p && c.node(*p).op == "LogSoftmax") return e;
  for (std::size_t k : c.consumers(e)) {
    const Node& div = c.node(k);
    if (div.op != "Div" || !binary(div) || div.inputs[0] != e || div.outputs.empty()) continue;
    const auto sum = c.producer(div.inputs[1]);
    if (sum && c.node(*sum).op == "ReduceSum" && !c.node(*sum).inputs.empty() && c.node(*sum).inputs[0] == e)
      return div.outputs[0];
  }
  return std::nullopt;
}

bool causal_plus_bias(const Context& c, const std::string& tensor, const std::vector<std::uint64_t>& scores) {
  const auto p = c.producer(unscaled(c, tensor));
  if (!p || c.node(*p).op != "Add" || c.node(*p).inputs.size() != 2) return false;
  const auto& terms = c.node(*p).inputs;
  const auto valued = [&](const std::string& x) {  // values known: the sum's own values tell (a band, an unmasking)
    const Tensor* t = c.tensor(x);
    return t && (t->values || t->band || t->scalar);
  };
  for (int i = 0; i < 2; ++i)
    if (mask_causality(c, terms[i], scores, &Tensor::causal_additive) == Causality::yes && !valued(terms[1 - i]))
      return true;
  return false;
}

bool attention_like_softmax(const Context& c, std::size_t i) {
  const Node& n = c.node(i);
  std::string t;
  if (n.op == "Softmax" && !n.outputs.empty())
    t = n.outputs[0];
  else if (const auto written = written_out_softmax(c, n))
    t = *written;
  else
    return false;
  for (auto k = c.sole_consumer(t);
       k && (c.node(*k).op == "Cast" || c.node(*k).op == "Dropout") && !c.node(*k).outputs.empty();
       k = c.sole_consumer(t))
    t = c.node(*k).outputs[0];
  for (std::size_t k : c.consumers(t)) {  // a product with an activation: as MatMul(probabilities, V) or an Einsum
    const Node& reader = c.node(k);
    if (reader.op == "MatMul" && binary(reader) && reader.inputs[0] == t && !c.constant(reader.inputs[1])) return true;
    if (reader.op == "Einsum" && binary(reader) && !c.constant(reader.inputs[reader.inputs[0] == t ? 1 : 0]))
      return true;
  }
  return false;
}

std::optional<Match> match_pattern(const Context& c, std::size_t i) {
  for (auto pattern : {attention, attention_op, gelu, gelu_tanh, silu, decomposed_layernorm, linear_with_bias})
    if (auto m = pattern(c, i)) return m;
  return std::nullopt;
}

}  // namespace ecosim::onnx_import
