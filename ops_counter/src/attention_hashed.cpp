// Op counts of EcoFormer hashed attention and its ablations. Queries and keys share one projection and are
// L2-normalised; each token is hashed once to a b-bit code h ∈ {−1,+1}^b, then
//   out_i = (h_i·Σ_j h_j v_jᵀ + c·Σ_j v_j) / (h_i·Σ_j h_j + c·N),
// where products with codes are additions and subtractions. Hash functions:
//   ecoformer, klsh-ecoformer: RBF kernel to m anchors, centred, projected to b bits, sign (learned / random)
//   lsh-ecoformer: random hyperplanes on the d features; bi-ecoformer: sign of the d features (b = d)
//   fp-ecoformer: the kernel projection without sign, so the attention products are real multiplications.
#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"

namespace ecosim::detail {

namespace {

/// Paper-convention normaliser: muls N·b + N, adds N·b per (batch, head).
OpCounts paper_denominator(std::uint64_t gn, std::uint64_t b) {
  OpCounts p = muls(checked_add(checked_mul(gn, b), gn));
  p += adds(checked_mul(gn, b));
  return p;
}

}  // namespace

void emit_hashed(const AttentionConfig& c, const AttentionEmitter& emit) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq, d = c.head_dim, b = c.code_bits();
  const bool binary = c.variant != AttentionVariant::fp_ecoformer;
  const DType code = binary ? DType::binary : DType::fp32;
  const DType sum_type = binary ? DType::int32 : DType::fp32;  // Σ of ±1 codes is an exact integer
  const std::uint64_t gn = checked_mul(g, n);

  emit(ops::l2_normalize("qk_normalize", g, n, d), {});
  for (stages::HashPart part : stages::all_hash_parts())
    if (stages::performs(c, part)) emit(stages::hash_record(c, part), stages::paper_hash_counts(c, part));

  // s = Σ_j h_j: b sums of N codes
  OpRecord code_sum = ops::reduce("code_sum", "sum", g, b, n, sum_type, ops::sum_row(n), 1);
  code_sum.a_dtype = code_sum.b_dtype = code;
  code_sum.counts = ops::scaled(ops::sum_row(n), checked_mul(g, b), sum_type);
  code_sum.counts.add_read_bytes(code, storage_bytes(code, checked_product({g, n, b})));
  code_sum.counts.add_written_bytes(sum_type, storage_bytes(sum_type, checked_mul(g, b)));
  emit(std::move(code_sum), adds(checked_mul(gn, b)));

  // z = Σ_j v_j (d sums of N values), then c·z once per (batch, head)
  emit(ops::reduce("value_sum", "sum", g, d, n, DType::fp32, {.mul = 1, .add = n - 1}, 1), {});

  const std::uint64_t gnbd = checked_product({gn, b, d});
  if (binary) {
    // M = Σ_j h_j v_jᵀ (b×d) and num_i = h_i·M + c·z: additions and subtractions selected by code bits
    emit(ops::popcount_accumulate("context", {.batch = g, .m = b, .n = d, .k = n, .a = code}), adds(gnbd));
    emit(ops::popcount_accumulate("numerator", {.batch = g, .m = n, .n = d, .k = b, .a = code, .bias = true}),
         adds(checked_add(gnbd, checked_mul(gn, d))));
    // den_i = h_i·s + c·N, in integers
    emit(ops::popcount_accumulate("denominator", {.batch = g, .m = n, .n = 1, .k = b, .a = code,
                                                  .b = DType::int32, .out = DType::int32, .bias = true}),
         paper_denominator(gn, b));
  } else {
    emit(ops::gemm("context", {.batch = g, .m = b, .n = d, .k = n}), ops::macs(gnbd));
    OpCounts numerator = ops::macs(gnbd);
    numerator += adds(checked_mul(gn, d));
    emit(ops::gemm("numerator", {.batch = g, .m = n, .n = d, .k = b, .bias = true}), numerator);
    emit(ops::gemm("denominator", {.batch = g, .m = n, .n = 1, .k = b, .bias = true}),
         paper_denominator(gn, b));
  }
  emit(ops::reduce("normalise", "normalise", g, n, d, DType::fp32, {.mul = d, .div = 1}, d), muls(checked_mul(gn, d)));
}

}  // namespace ecosim::detail
