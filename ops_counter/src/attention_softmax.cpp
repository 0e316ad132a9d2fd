// Stages of softmax attention: MSA (keys = all N tokens), SRA (keys = the reduced token grid, reduced in
// the projections), LSA (attention within each window of the zero-padded grid) and Linformer (keys and
// values projected along the sequence to k rows by one matrix E shared by K and V, and by every head and
// batch entry); sliding-window attention (each query over the W keys ending at it, of the last W + N − 1); a causal
// MSA scores only the (query, key) pairs it attends (the lower triangle); grouped-query attention whose rows attend
// every key stacks a K/V head's query heads as one product's rows; and their analytic counter.
#include <array>

#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::stages {

Stage linformer_projections(const AttentionConfig& c) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.key_count(), d = c.head_dim, k = c.proj_k;
  // (E·K)ᵀ = Kᵀ·Eᵀ: d×Nk times Nk×k, with Eᵀ shared by every (batch, head)
  const ops::GemmShape proj{.batch = g, .m = d, .n = k, .k = n, .b_shared = true};
  const OpCounts paper = ops::macs(checked_product({g, d, k, n}));
  return {{ops::gemm("k_proj", proj), paper}, {ops::gemm("v_proj", proj), paper}};
}

namespace {

/// Σ over `rows` rows of mix(L_i), the lengths summing to `total`: exact for a row mix affine in the length
/// (softmax_row is), from its values at lengths 1 and 2.
OpCounts rows_of_lengths(ops::OpMix (*mix)(std::uint64_t), std::uint64_t rows, std::uint64_t total) {
  const ops::OpMix one = mix(1), two = mix(2);
  const ops::OpMix step{.mul = two.mul - one.mul,
                        .add = two.add - one.add,
                        .cmp = two.cmp - one.cmp,
                        .exp = two.exp - one.exp,
                        .div = two.div - one.div,
                        .sqrt = two.sqrt - one.sqrt,
                        .popcount = two.popcount - one.popcount};
  OpCounts c = ops::scaled(one, rows, DType::fp32);
  c += ops::scaled(step, total - rows, DType::fp32);
  return c;
}

/// The causal core's records: the rectangular records' shapes (queries × keys, so the accelerator maps the
/// attention it belongs to) marked params.causal = 1, their operations and bytes those of the `pairs` (query,
/// key) pairs attended; nothing is computed for a masked pair, so there is no mask add. K and V are read once
/// per K/V head (kv_g of them).
void keep_attended(std::array<OpRecord, 4>& core, std::uint64_t g, std::uint64_t n, std::uint64_t keys, std::uint64_t d,
                   std::uint64_t pairs, DType input, std::uint64_t kv_g) {
  const std::uint64_t scores = checked_mul(g, pairs), rows = checked_mul(g, n);
  auto gemm_counts = [&](std::uint64_t products, std::uint64_t sums) {
    OpCounts c;
    c.add(OpKind::mul, DType::fp32, products);
    c.add(OpKind::add, DType::fp32, sums);
    return c;
  };
  const std::uint64_t q_bytes = storage_bytes(input, checked_product({g, n, d})),
                      kv_bytes = storage_bytes(input, checked_product({kv_g, keys, d})),
                      score_bytes = storage_bytes(DType::fp32, scores);
  core[0].counts = gemm_counts(checked_mul(scores, d), checked_mul(scores, d - 1));
  core[0].counts.add_read_bytes(input, checked_add(q_bytes, kv_bytes)).add_written_bytes(DType::fp32, score_bytes);
  core[1].counts = ops::scaled({.mul = 1}, scores, DType::fp32);
  core[1].counts.add_read_bytes(DType::fp32, score_bytes).add_written_bytes(DType::fp32, score_bytes);
  core[2].counts = rows_of_lengths(&ops::softmax_row, rows, scores);
  core[2].counts.add_read_bytes(DType::fp32, score_bytes).add_written_bytes(DType::fp32, score_bytes);
  core[3].counts = gemm_counts(checked_mul(scores, d), checked_mul(scores - rows, d));
  core[3]
      .counts.add_read_bytes(DType::fp32, score_bytes)
      .add_read_bytes(input, kv_bytes)
      .add_written_bytes(DType::fp32, storage_bytes(DType::fp32, checked_product({g, n, d})));
  for (OpRecord& r : core) r.params[std::string(ops::kCausalParam)] = 1;
}

}  // namespace

Stage softmax_core(std::uint64_t g, std::uint64_t n, std::uint64_t keys, std::uint64_t d, DType input, bool causal,
                   std::uint64_t window, std::uint64_t kv_groups) {
  std::array<OpRecord, 4> core = {ops::gemm("scores", {.batch = g, .m = n, .n = keys, .k = d, .a = input, .b = input}),
                                  ops::eltwise("scale", "scale", g, n, keys, DType::fp32, {.mul = 1}),
                                  ops::softmax("softmax", g, n, keys),
                                  ops::gemm("context", {.batch = g, .m = n, .n = d, .k = keys, .b = input})};
  const std::uint64_t per_group = attended_pairs(n, keys, causal, window), pairs = checked_mul(g, per_group);
  if (causal) keep_attended(core, g, n, keys, d, per_group, input, kv_groups ? kv_groups : g);
  if (causal && kv_groups && kv_groups < g)
    for (OpRecord& r : core) r.params[std::string(ops::kKvGroupsParam)] = kv_groups;
  if (causal && window && window < keys)
    for (OpRecord& r : core) r.params[std::string(ops::kWindowParam)] = window;
  ops::join_group(core, ops::kSoftmaxAttentionGroup);
  const OpCounts products = ops::macs(checked_mul(pairs, d));
  return {{std::move(core[0]), products},
          {std::move(core[1]), ops::muls(pairs)},
          {std::move(core[2]), {}},
          {std::move(core[3]), products}};
}

Stage softmax_attention(const AttentionConfig& c, DType input) {
  std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq;
  if (c.variant == AttentionVariant::lsa) {  // every window an independent attention of window² tokens
    g = checked_mul(g, lsa_windows(c));
    n = c.window * c.window;
  }
  const std::uint64_t keys = c.variant == AttentionVariant::sra         ? sra_keys(c)
                             : c.variant == AttentionVariant::linformer ? c.proj_k
                             : c.variant == AttentionVariant::lsa       ? n
                                                                        : window_keys(c);
  const bool sliding = c.variant == AttentionVariant::sliding, causal = c.causal || sliding;
  const bool full_rows = n == 1 || !causal;  // every query row attends every key of the record
  // (the variants reading each K/V head's own keys and values: grouped-query attention applies to them)
  const bool kv_heads_apply = c.variant == AttentionVariant::msa || sliding;
  if (full_rows && kv_heads_apply && c.key_heads() < c.heads) {
    // Grouped-query attention: the query heads sharing a K/V head stacked as the rows of one product (as
    // FlashAttention packs them), so each K/V head is read once; with one query row, or none masked, no row's
    // keys change (a decode step's query attends all the keys of its record, a window's too).
    const std::uint64_t group = c.heads / c.key_heads();
    Stage packed =
        softmax_core(checked_mul(c.batch, c.key_heads()), checked_mul(n, group), keys, c.head_dim, input, false, 0);
    for (StageRecord& r : packed) r.exact.params[std::string(ops::kPackedHeadsParam)] = group;
    return packed;
  }
  // (grouped-query rows attending different keys stay one product per query head, K and V read once per K/V head)
  const std::uint64_t kv_groups = kv_heads_apply ? checked_mul(c.batch, c.key_heads()) : g;
  return softmax_core(g, n, keys, c.head_dim, input, causal, sliding ? c.sliding_window : 0, kv_groups);
}

}  // namespace ecosim::stages

namespace ecosim::detail {

void emit_softmax_attention(const AttentionConfig& c, const AttentionEmitter& emit) {
  if (c.variant == AttentionVariant::linformer) emit(stages::linformer_projections(c));
  emit(stages::softmax_attention(c));
}

}  // namespace ecosim::detail
