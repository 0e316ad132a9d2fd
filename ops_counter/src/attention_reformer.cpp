// Stages of Reformer-style LSH attention, and its analytic counter: shared-QK (keys are the L2-normalised
// queries), R rounds of random-rotation hashing into nb buckets (argmax over [xR, −xR]), a sort per round,
// attention within chunks of L sorted tokens to their own chunk and `chunks_before` previous chunks
// (wrapping around) with each token's own key masked, then the rounds combined by their softmax normalisers.
// Causal (a prefill): sorted by bucket, then position, so within a bucket the sorted order is the positions' order;
// each token attends to the tokens before it in its own chunk (the lower triangle, its own key scored and masked as
// above) and to the `chunks_before` chunks before its chunk, without wrapping around (the wrapped chunks hold later
// buckets' tokens: all masked, none scored) — the within-bucket lower triangle, for chunks the size of buckets.
// Decode (N new tokens over Nk keys, the P = Nk − N earlier ones cached with their bucket ids, sorted): each new
// token is hashed (nb buckets of the Nk keys), inserted into each round's sorted order (⌈log₂ Nk⌉ compares), and
// attends to the W = (before + 1)·L keys ending at it in that order — its own chunk and the chunks before, as a
// window sliding with it (the newest token is its bucket's last).
#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <utility>

#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::stages {

namespace {

/// Chunk-score pass: scale by 1/√d (fp32 mul) and mask each token's own key (int32 position compare), per
/// score of `batch` chunks of queries × keys.
OpRecord scale_and_mask(const std::string& name, std::uint64_t batch, std::uint64_t queries, std::uint64_t keys) {
  OpRecord r = ops::eltwise(name, "scale_mask_own_key", batch, queries, keys, DType::fp32, {.mul = 1});
  r.counts.add(OpKind::cmp, DType::int32, checked_product({batch, queries, keys}));
  return r;
}

/// A causal chunk's records: the rectangle's shapes (q queries × keys, the last q of them the newest) marked
/// params.causal = 1, their operations and bytes those of the `pairs_per_batch` attended pairs only.
void keep_attended_pairs(std::array<OpRecord, 4>& core, std::uint64_t batch, std::uint64_t q, std::uint64_t keys,
                         std::uint64_t d, std::uint64_t pairs_per_batch) {
  const std::uint64_t pairs = checked_mul(batch, pairs_per_batch), rows = checked_mul(batch, q);
  const std::uint64_t pair_bytes = storage_bytes(DType::fp32, pairs),
                      key_bytes = storage_bytes(DType::fp32, checked_product({batch, keys, d}));
  for (OpRecord& r : core) r.counts = {};
  core[0]
      .counts.add(OpKind::mul, DType::fp32, checked_mul(pairs, d))
      .add(OpKind::add, DType::fp32, checked_mul(pairs, d - 1));
  core[0]
      .counts.add_read_bytes(DType::fp32, checked_add(storage_bytes(DType::fp32, checked_mul(rows, d)), key_bytes))
      .add_written_bytes(DType::fp32, pair_bytes);
  core[1].counts.add(OpKind::mul, DType::fp32, pairs).add(OpKind::cmp, DType::int32, pairs);
  core[1].counts.add_read_bytes(DType::fp32, pair_bytes).add_written_bytes(DType::fp32, pair_bytes);
  core[2]  // per row of L: 2L − 1 adds, L − 1 cmp, L exps
      .counts.add(OpKind::add, DType::fp32, checked_mul(2, pairs) - rows)
      .add(OpKind::cmp, DType::fp32, pairs - rows)
      .add(OpKind::exp, DType::fp32, pairs);
  core[2].counts.add_read_bytes(DType::fp32, pair_bytes).add_written_bytes(DType::fp32, pair_bytes);
  core[3]
      .counts.add(OpKind::mul, DType::fp32, checked_mul(pairs, d))
      .add(OpKind::add, DType::fp32, checked_mul(pairs - rows, d));
  core[3]
      .counts.add_read_bytes(DType::fp32, checked_add(pair_bytes, key_bytes))
      .add_written_bytes(DType::fp32, storage_bytes(DType::fp32, checked_mul(rows, d)));
  for (OpRecord& r : core) r.params[std::string(ops::kCausalParam)] = 1;
}

}  // namespace

std::uint64_t ReformerPlan::keys(std::uint64_t i) const {
  std::uint64_t total = 0;
  for (std::uint64_t j = 0; j <= before; ++j) total += size(key_chunk(i, j));
  return total;
}

ReformerPlan reformer_plan(const AttentionConfig& c) {
  ReformerPlan p;
  p.seq = c.seq;
  p.chunk = c.chunk;
  p.chunks = (c.seq + c.chunk - 1) / c.chunk;
  p.before = std::min(c.chunks_before, p.chunks - 1);
  p.buckets = reformer_buckets(c);
  p.rounds = c.hashes;
  return p;
}

Stage reformer_hashing(const AttentionConfig& c) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq, keys = c.key_count(), d = c.head_dim, r = c.hashes;
  const std::uint64_t buckets = reformer_buckets(c);
  const std::uint64_t log2n = n > 1 ? std::bit_width(n - 1) : 0;  // ⌈log2 N⌉ compares per element
  // decode: the new tokens inserted into the sorted order of the Nk keys, ⌈log2 Nk⌉ compares each
  OpRecord order = keys > n ? ops::reduce("bucket_insert", "insert_sorted", g, r, n, DType::int32,
                                          {.cmp = checked_mul(n, std::bit_width(keys - 1))}, n)
                            : ops::reduce("sort", "sort", g, r, n, DType::int32, {.cmp = checked_mul(n, log2n)}, n);
  return {
      {ops::l2_normalize("k_normalize", g, n, d), {}},
      {ops::gemm("rotations", {.batch = g, .m = n, .n = r * buckets / 2, .k = d, .b_shared = true}),
       ops::macs(checked_product({g, n, r * buckets / 2, d}))},
      {ops::reduce("bucket_argmax", "argmax", g, checked_mul(n, r), buckets, DType::fp32, {.cmp = buckets - 1}, 1), {}},
      {std::move(order), {}},
      {ops::memcpy("gather", g, checked_mul(r, n), checked_mul(3, d), DType::fp32), {}}};
}

Stage reformer_chunk_attention(const AttentionConfig& c) {
  const ReformerPlan p = reformer_plan(c);
  const std::uint64_t g = checked_mul(c.batch, c.heads), d = c.head_dim;
  const bool decode = c.key_count() > c.seq;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> shapes;  // (queries, keys) → chunks
  if (decode)  // one block: the N new tokens, each over the window ending at it
    ++shapes[{c.seq, std::min(c.key_count(), reformer_decode_window(c) + c.seq - 1)}];
  for (std::uint64_t i = 0; i < (decode ? 0 : p.chunks); ++i) {
    std::uint64_t keys = p.keys(i);
    if (c.causal) {  // its own chunk and the min(before, i) chunks before it, no wrapping
      keys = p.size(i);
      for (std::uint64_t j = 1; j <= std::min(p.before, i); ++j) keys += p.size(i - j);
    }
    ++shapes[{p.size(i), keys}];
  }
  Stage stage;
  std::size_t index = 0;
  for (const auto& [shape, count] : shapes) {
    const auto [q, keys] = shape;
    std::string suffix;  // (built by append: `"." + to_string` trips a false g++ 12 -Wrestrict warning)
    if (shapes.size() > 1) suffix.append(".").append(std::to_string(index++));
    const std::uint64_t batch = checked_product({g, p.rounds, count});
    std::array<OpRecord, 4> core = {
        ops::gemm("chunk_scores" + suffix, {.batch = batch, .m = q, .n = keys, .k = d}),
        // scale, and (shared QK) mask each token's own key: one position compare per score, in the same pass
        scale_and_mask("chunk_scale" + suffix, batch, q, keys),
        // max, subtract, exp, sum; normalisation waits for the rounds to be combined
        ops::reduce("chunk_softmax" + suffix, std::string(ops::kUnnormalisedSoftmaxFunc), batch, q, keys, DType::fp32,
                    {.add = 2 * keys - 1, .cmp = keys - 1, .exp = keys}, keys),
        ops::gemm("chunk_context" + suffix, {.batch = batch, .m = q, .n = d, .k = keys})};
    const std::uint64_t per_batch =
        decode ? attended_pairs(q, c.key_count(), true, reformer_decode_window(c)) : attended_pairs(q, keys, c.causal);
    if (c.causal) keep_attended_pairs(core, batch, q, keys, d, per_batch);
    ops::join_group(core, std::string(ops::kChunkAttentionGroup) + suffix);
    const std::uint64_t pairs = checked_mul(batch, per_batch);
    const OpCounts products = ops::macs(checked_mul(pairs, d));
    stage.push_back({std::move(core[0]), products});
    stage.push_back({std::move(core[1]), ops::muls(pairs)});
    stage.push_back({std::move(core[2]), {}});
    stage.push_back({std::move(core[3]), products});
  }
  return stage;
}

Stage reformer_combine(const AttentionConfig& c) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq, d = c.head_dim, r = c.hashes;
  // Per token: with one round, divide by the normaliser; with R rounds, rescale each round's numerator and
  // normaliser to the largest max (R−1 compares, R subtractions and exps, R·(d+1) multiplies), sum them
  // ((R−1)·(d+1) additions), then divide.
  const ops::OpMix combine =
      r == 1 ? ops::OpMix{.mul = d, .div = 1}
             : ops::OpMix{.mul = r * (d + 1) + d, .add = r + (r - 1) * (d + 1), .cmp = r - 1, .exp = r, .div = 1};
  return {{ops::memcpy("unsort", g, checked_mul(r, n), d + 1, DType::fp32), {}},
          {ops::reduce("combine_rounds", "combine_rounds", g, n, checked_mul(r, d + 1), DType::fp32, combine, d), {}}};
}

}  // namespace ecosim::stages

namespace ecosim::detail {

void emit_reformer(const AttentionConfig& c, const AttentionEmitter& emit) {
  emit(stages::reformer_hashing(c));
  emit(stages::reformer_chunk_attention(c));
  emit(stages::reformer_combine(c));
}

}  // namespace ecosim::detail
