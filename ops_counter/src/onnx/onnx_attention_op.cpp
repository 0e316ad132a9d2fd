// Opset 23's Attention node as a found attention block: Q, K, V in the 4-D form [batch, heads, tokens, width]
// or the 3-D form [batch, tokens, heads·width] (q_num_heads and kv_num_heads then say how to split), an
// optional mask (bool: true where attended; float: added) and an optional KV cache (past_key, past_value) whose
// tokens the keys extend. It counts as the decomposed form does (scores, scale, mask, softmax, context) and
// swaps as any found block.
#include <array>

#include <fmt/core.h>

#include "onnx_convert.hpp"

namespace ecosim::onnx_import {

namespace {

/// [batch, heads, tokens, width] of Attention input `index` (its rank-3 form split by `heads_attribute`).
std::array<std::uint64_t, 4> attention_dims(const Context& c, const Node& n, std::size_t index,
                                            const char* heads_attribute) {
  const std::vector<std::uint64_t>& d = c.dims(n.inputs[index], n);
  if (d.size() == 4) return {d[0], d[1], d[2], d[3]};
  if (d.size() != 3) c.fail(n, fmt::format("input {} has rank {} (Attention takes rank 3 or 4)", index, d.size()));
  const auto it = n.ints.find(heads_attribute);
  if (it == n.ints.end() || it->second.empty() || it->second[0] < 1)
    c.fail(n, fmt::format("a rank-3 input {} needs a positive {} attribute", index, heads_attribute));
  const auto heads = static_cast<std::uint64_t>(it->second[0]);
  if (d[2] % heads != 0)
    c.fail(n, fmt::format("input {}'s width {} is not a multiple of {} = {}", index, d[2], heads_attribute, heads));
  return {d[0], heads, d[1], d[2] / heads};
}

bool given(const Node& n, std::size_t index) { return n.inputs.size() > index && !n.inputs[index].empty(); }

}  // namespace

std::optional<Match> attention_op(const Context& c, std::size_t i) {
  const Node& n = c.node(i);
  if (n.op != "Attention") return std::nullopt;
  if (!given(n, 0) || !given(n, 1) || !given(n, 2) || n.outputs.empty() || n.outputs[0].empty())
    c.fail(n, "Attention needs Q, K, V and an output");
  if (const auto cap = n.floats.find("softcap"); cap != n.floats.end() && cap->second != 0)
    c.fail(n, "Attention with softcap (a tanh on every score) is not counted");
  const auto q = attention_dims(c, n, 0, "q_num_heads"), k = attention_dims(c, n, 1, "kv_num_heads"),
             v = attention_dims(c, n, 2, "kv_num_heads");
  if (k[0] != q[0] || v[0] != q[0] || v[1] != k[1] || v[2] != k[2])
    c.fail(n, "Q, K and V disagree on batch, K/V heads or key tokens");
  if (k[3] != q[3] || v[3] != q[3])
    c.fail(n, fmt::format("head widths differ (Q {}, K {}, V {}): counted only when equal", q[3], k[3], v[3]));
  if (q[1] % k[1] != 0) c.fail(n, fmt::format("{} query heads do not share {} K/V heads evenly", q[1], k[1]));
  std::uint64_t keys = k[2];
  if (given(n, 4) != given(n, 5)) c.fail(n, "past_key and past_value come together");
  if (given(n, 4)) {
    const auto past = attention_dims(c, n, 4, "kv_num_heads"), past_v = attention_dims(c, n, 5, "kv_num_heads");
    if (past[0] != q[0] || past[1] != k[1] || past[3] != q[3] || past_v != past)
      c.fail(n, "past_key and past_value disagree with K, V or each other on batch, heads, tokens or width");
    keys += past[2];
  }
  const bool is_causal = n.ints.contains("is_causal") && !n.ints.at("is_causal").empty() && n.ints.at("is_causal")[0];
  // ONNX aligns is_causal's triangle top-left (query i sees keys 0..i); ecosim's causal blocks bottom-right (a
  // KV cache: query i sees keys 0..keys − queries + i). They agree only when queries = keys.
  if (is_causal && keys != q[2])
    c.fail(n, fmt::format("is_causal with {} queries over {} keys: ONNX aligns its mask top-left, ecosim's causal "
                          "attention bottom-right; give the mask as attn_mask instead",
                          q[2], keys));
  SoftmaxAttention a{.batch = q[0], .heads = q[1], .queries = q[2], .keys = keys, .head_dim = q[3]};
  a.kv_heads = k[1];
  a.masked = is_causal || given(n, 3);
  a.causal = is_causal;
  if (given(n, 3)) {
    const Tensor* mask = c.tensor(n.inputs[3]);
    a.mask_select = mask && mask->boolean;
    const std::vector<std::uint64_t> scores = {q[0], q[1], q[2], keys};
    const Causality from_mask =
        mask_causality(c, n.inputs[3], scores, a.mask_select ? &Tensor::causal_keep : &Tensor::causal_additive);
    a.causal = a.causal || from_mask == Causality::yes;
    a.mask_unknown = !a.causal && from_mask == Causality::unknown;
  }
  return Match{{i}, Layer{"", a}, true};
}

}  // namespace ecosim::onnx_import
