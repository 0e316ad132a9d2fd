// Stages of Performer FAVOR+ attention with F positive random features, and its analytic counter:
//   φ(x) = exp(ωᵀx̃ − ‖x̃‖²/2)/√F with x̃ = x/d^¼, out = φ(Q)(φ(K)ᵀV) / (φ(Q)·Σ_j φ(k_j)).
// The key features, kv and k_sum run over the Nk keys, the rest over the N queries. Causal (prefix sums, and
// in decode the recurrent state): query i uses S_i = Σ_{j≤i} φ(k_j)v_jᵀ and z_i = Σ_{j≤i} φ(k_j), so only the N new
// keys are featurised and folded into S and z, onto the state of the P = Nk − N earlier keys when P > 0; every
// prefix's products and sums are those of the whole sum, so a prefill of N counts the operations of its N steps.
// Grouped-query attention: φ(k), S and z depend on the keys and values only, so they are formed once per K/V head
// and read by the query heads of its group; φ(q) and the readout stay per query head.
// ω (d×F, orthogonal draws) is shared by every batch entry and head and drawn once, so not counted.
#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::stages {

Stage performer_features(const AttentionConfig& c, std::string_view which) {
  const bool keys = which == "k";  // the key features: once per K/V head, shared by its group's query heads
  const std::uint64_t g = checked_mul(c.batch, keys ? c.key_heads() : c.heads), n = keys ? folded_keys(c) : c.seq,
                      d = c.head_dim, f = c.features;
  const std::string p(which);
  return {
      {ops::eltwise(p + "_scale", "scale", g, n, d, DType::fp32, {.mul = 1}), {}},
      {ops::gemm(p + "_omega", {.batch = g, .m = n, .n = f, .k = d, .b_shared = true}),
       ops::macs(checked_product({g, n, f, d}))},
      // ‖x̃‖²/2: d squares, d−1 additions, one halving
      {ops::reduce(p + "_sq_norm", "sq_norm", g, n, d, DType::fp32, {.mul = d + 1, .add = d - 1}, 1), {}},
      // the stabiliser: a query row's largest exponent (F compares from −∞), a group's keys' largest (each row's,
      // then one more compare a row: a prefill and its decode steps do the same work)
      {ops::reduce(p + "_max", "max", g, n, f, DType::fp32, {.cmp = keys ? f + 1 : f}, 1), {}},
      // ωᵀx̃ − ‖x̃‖²/2 − m, exp, ·1/√F
      {ops::eltwise(p + "_features", "positive_features", g, n, f, DType::fp32, {.mul = 1, .add = 2, .exp = 1}), {}}};
}

Stage performer_state(const AttentionConfig& c) {  // over keys and values only: one state per K/V head
  const std::uint64_t g = checked_mul(c.batch, c.key_heads()), keys = folded_keys(c), d = c.head_dim, f = c.features;
  StageRecord kv{ops::gemm("kv", {.batch = g, .m = f, .n = d, .k = keys}), ops::macs(checked_product({g, keys, f, d}))};
  StageRecord k_sum{ops::reduce("k_sum", "sum", g, f, keys, DType::fp32, ops::sum_row(keys), 1), {}};
  if (holds_state(c)) {
    ops::add_onto_state(kv.exact, DType::fp32, checked_product({g, f, d}));
    ops::add_onto_state(k_sum.exact, DType::fp32, checked_mul(g, f));
  }
  return {std::move(kv), std::move(k_sum)};
}

Stage performer_mixing(const AttentionConfig& c) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq, d = c.head_dim, f = c.features;
  Stage stage = performer_state(c);
  stage.push_back(
      {ops::gemm("numerator", {.batch = g, .m = n, .n = d, .k = f}), ops::macs(checked_product({g, n, f, d}))});
  stage.push_back(
      {ops::gemm("denominator", {.batch = g, .m = n, .n = 1, .k = f}), ops::macs(checked_product({g, n, f}))});
  stage.push_back({ops::reduce("normalise", "normalise", g, n, d, DType::fp32, {.mul = d, .div = 1}, d), {}});
  return stage;
}

}  // namespace ecosim::stages

namespace ecosim::detail {

void emit_performer(const AttentionConfig& c, const AttentionEmitter& emit) {
  emit(stages::performer_features(c, "q"));
  emit(stages::performer_features(c, "k"));
  emit(stages::performer_mixing(c));
}

}  // namespace ecosim::detail
