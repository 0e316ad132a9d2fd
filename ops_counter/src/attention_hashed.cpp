// Stages of EcoFormer hashed attention and its ablations around the hash (hash_stages.cpp), and their
// analytic counter. Queries and keys share one projection and are L2-normalised; each token is hashed once
// to a b-bit code h ∈ {−1,+1}^b, then
//   out_i = (h_i·Σ_j h_j v_jᵀ + c·Σ_j v_j) / (h_i·Σ_j h_j + c·N),
// where products with codes are additions and subtractions. Hash functions:
//   ecoformer, klsh-ecoformer: RBF kernel to m anchors, centred, projected to b bits, sign (learned / random)
//   lsh-ecoformer: random hyperplanes on the d features; bi-ecoformer: sign of the d features (b = d)
//   fp-ecoformer: the kernel projection without sign, so the attention products are real multiplications.
// Causal (prefix sums, and in decode the recurrent state): query i uses M_i, s_i and z_i over keys j ≤ i and c·i,
// so only the N new tokens are hashed and folded into the sums, onto the state of the P = Nk − N earlier keys when
// P > 0, and c·z_i is formed per query; a prefill of N counts the operations of its N decode steps.
// Grouped-query attention: s and M sum over keys, z over values only; the keys being the queries (one shared
// projection), s and M are kept per query head, z (and c·z_i) once per value head and read by the query heads of
// its group; the hash and the readout (numerator, denominator) stay per query head.
#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"

namespace ecosim::stages {

namespace {

/// What the stages after the hash work over: the query heads (the readout), the key heads (the sums over keys:
/// the query heads, keys and queries being one), or the value heads (the sums of values, shared by a group).
enum class Over : std::uint8_t { queries, keys, values };

/// The shapes and types every stage after the hash works with.
struct Hashed {
  std::uint64_t g, n, d, b, gn;
  bool binary;  // ±1 codes (all but fp-ecoformer)
  DType code;   // codes: binary, or fp32 projections
  DType sum;    // Σ of ±1 codes is an exact integer
  explicit Hashed(const AttentionConfig& c, Over over = Over::queries)
      : g(checked_mul(c.batch, over == Over::keys     ? c.key_heads()
                               : over == Over::values ? c.value_heads()
                                                      : c.heads)),
        n(c.seq),
        d(c.head_dim),
        b(c.code_bits()),
        gn(checked_mul(g, n)),
        binary(binary_codes(c.variant)),
        code(binary ? DType::binary : DType::fp32),
        sum(binary ? DType::int32 : DType::fp32) {}

  /// A product with the codes: additions and subtractions selected by code bits, or a real GEMM.
  OpRecord code_product(std::string name, const ops::GemmShape& s) const {
    return binary ? ops::popcount_accumulate(std::move(name), s) : ops::gemm(std::move(name), s);
  }
};

Stage qk_normalize(const AttentionConfig& c) {
  const Hashed h(c);
  return {{ops::l2_normalize("qk_normalize", h.g, h.n, h.d), {}}};
}

Stage code_sum(const AttentionConfig& c) {  // b sums of N codes
  const Hashed h(c, Over::keys);
  OpRecord r = ops::reduce("code_sum", "sum", h.g, h.b, h.n, h.sum, ops::sum_row(h.n), 1);
  r.a_dtype = r.b_dtype = h.code;
  r.counts = ops::scaled(ops::sum_row(h.n), checked_mul(h.g, h.b), h.sum);
  r.counts.add_read_bytes(h.code, storage_bytes(h.code, checked_product({h.g, h.n, h.b})));
  r.counts.add_written_bytes(h.sum, storage_bytes(h.sum, checked_mul(h.g, h.b)));
  if (holds_state(c)) ops::add_onto_state(r, h.sum, checked_mul(h.g, h.b));
  return {{std::move(r), ops::adds(checked_mul(h.gn, h.b))}};
}

Stage value_sum(const AttentionConfig& c) {  // d sums of N values, then c·z once per (batch, head); causal: c·z_i
  const Hashed h(c, Over::values);
  OpRecord r =
      ops::reduce("value_sum", "sum", h.g, h.d, h.n, DType::fp32, {.mul = c.causal ? h.n : 1, .add = h.n - 1}, 1);
  if (holds_state(c)) ops::add_onto_state(r, DType::fp32, checked_mul(h.g, h.d));
  return {{std::move(r), {}}};
}

Stage context(const AttentionConfig& c) {  // M = Σ_j h_j v_jᵀ (b×d)
  const Hashed h(c, Over::keys);
  const std::uint64_t gnbd = checked_product({h.gn, h.b, h.d});
  OpRecord r = h.code_product("context", {.batch = h.g, .m = h.b, .n = h.d, .k = h.n, .a = h.code});
  if (holds_state(c)) ops::add_onto_state(r, DType::fp32, checked_product({h.g, h.b, h.d}));
  return {{std::move(r), h.binary ? ops::adds(gnbd) : ops::macs(gnbd)}};
}

Stage numerator(const AttentionConfig& c) {  // num_i = h_i·M + c·z
  const Hashed h(c);
  const std::uint64_t gnbd = checked_product({h.gn, h.b, h.d});
  OpCounts paper = h.binary ? ops::adds(gnbd) : ops::macs(gnbd);
  paper += ops::adds(checked_mul(h.gn, h.d));
  return {
      {h.code_product("numerator", {.batch = h.g, .m = h.n, .n = h.d, .k = h.b, .a = h.code, .bias = true}), paper}};
}

Stage denominator(const AttentionConfig& c) {  // den_i = h_i·s + c·N (in integers for binary codes)
  const Hashed h(c);
  // paper: muls N·b + N, adds N·b per (batch, head)
  OpCounts paper = ops::muls(checked_add(checked_mul(h.gn, h.b), h.gn));
  paper += ops::adds(checked_mul(h.gn, h.b));
  return {
      {h.code_product("denominator",
                      {.batch = h.g, .m = h.n, .n = 1, .k = h.b, .a = h.code, .b = h.sum, .out = h.sum, .bias = true}),
       paper}};
}

Stage normalise(const AttentionConfig& c) {
  const Hashed h(c);
  return {{ops::reduce("normalise", "normalise", h.g, h.n, h.d, DType::fp32, {.mul = h.d, .div = 1}, h.d),
           ops::muls(checked_mul(h.gn, h.d))}};
}

}  // namespace

Stage hashed_stage(const AttentionConfig& c, HashedStage stage) {
  switch (stage) {
    case HashedStage::qk_normalize: return qk_normalize(c);
    case HashedStage::code_sum: return code_sum(c);
    case HashedStage::value_sum: return value_sum(c);
    case HashedStage::context: return context(c);
    case HashedStage::numerator: return numerator(c);
    case HashedStage::denominator: return denominator(c);
    case HashedStage::normalise: return normalise(c);
  }
  return {};
}

Stage hashed_state(const AttentionConfig& c) {
  Stage state;
  for (HashedStage s : {HashedStage::code_sum, HashedStage::value_sum, HashedStage::context})
    for (StageRecord& r : hashed_stage(c, s)) state.push_back(std::move(r));
  return state;
}

}  // namespace ecosim::stages

namespace ecosim::detail {

void emit_hashed(const AttentionConfig& c, const AttentionEmitter& emit) {
  using stages::HashedStage;
  emit(stages::hashed_stage(c, HashedStage::qk_normalize));
  for (stages::HashPart part : stages::all_hash_parts())
    if (stages::performs(c, part)) emit(stages::hash_part(c, part));
  for (HashedStage s : {HashedStage::code_sum, HashedStage::value_sum, HashedStage::context, HashedStage::numerator,
                        HashedStage::denominator, HashedStage::normalise})
    emit(stages::hashed_stage(c, s));
}

}  // namespace ecosim::detail
