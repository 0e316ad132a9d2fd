// Op counts of Reformer-style LSH attention: shared-QK (keys are the L2-normalised queries), R rounds of
// random-rotation hashing into nb buckets (argmax over [xR, −xR]), a sort per round, attention within
// chunks of L sorted tokens to their own chunk and `chunks_before` previous chunks (wrapping around) with
// each token's own key masked, then the rounds combined by their softmax normalisers.
#include <array>
#include <bit>
#include <map>
#include <utility>

#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim {

OpRecord reformer_scale_and_mask(const std::string& name, std::uint64_t batch, std::uint64_t queries,
                                 std::uint64_t keys) {
  OpRecord r = ops::eltwise(name, "scale_mask_own_key", batch, queries, keys, DType::fp32, {.mul = 1});
  r.counts.add(OpKind::cmp, DType::int32, checked_product({batch, queries, keys}));
  return r;
}

}  // namespace ecosim

namespace ecosim::detail {

namespace {

/// Query-chunk size → key count → number of such chunks, over the chunks of one round.
std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> chunk_shapes(const AttentionConfig& c) {
  const std::uint64_t chunks = (c.seq + c.chunk - 1) / c.chunk;
  const std::uint64_t before = std::min(c.chunks_before, chunks - 1);
  auto size = [&](std::uint64_t i) { return i + 1 < chunks ? c.chunk : c.seq - (chunks - 1) * c.chunk; };
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> shapes;
  for (std::uint64_t i = 0; i < chunks; ++i) {
    std::uint64_t keys = size(i);
    for (std::uint64_t j = 1; j <= before; ++j) keys += size((i + chunks - j) % chunks);
    ++shapes[{size(i), keys}];
  }
  return shapes;
}

}  // namespace

void emit_reformer(const AttentionConfig& c, const AttentionEmitter& emit) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq, d = c.head_dim, r = c.hashes;
  const std::uint64_t buckets = reformer_buckets(c);
  emit(ops::l2_normalize("k_normalize", g, n, d), {});
  emit(ops::gemm("rotations", {.batch = g, .m = n, .n = r * buckets / 2, .k = d, .b_shared = true}),
       ops::macs(checked_product({g, n, r * buckets / 2, d})));
  emit(ops::reduce("bucket_argmax", "argmax", g, checked_mul(n, r), buckets, DType::fp32,
                   {.cmp = buckets - 1}, 1),
       {});
  const std::uint64_t log2n = n > 1 ? std::bit_width(n - 1) : 0;  // ⌈log2 N⌉
  emit(ops::reduce("sort", "sort", g, r, n, DType::int32, {.cmp = checked_mul(n, log2n)}, n), {});
  emit(ops::memcpy("gather", g, checked_mul(r, n), checked_mul(3, d), DType::fp32), {});

  const auto shapes = chunk_shapes(c);
  std::size_t index = 0;
  for (const auto& [shape, count] : shapes) {
    const auto [q, keys] = shape;
    std::string suffix;
    if (shapes.size() > 1) suffix.append(".").append(std::to_string(index++));
    const std::uint64_t batch = checked_product({g, r, count});
    const std::uint64_t pairs = checked_product({batch, q, keys});
    std::array<OpRecord, 4> core = {
        ops::gemm("chunk_scores" + suffix, {.batch = batch, .m = q, .n = keys, .k = d}),
        // scale, and (shared QK) mask each token's own key: one position compare per score, in the same pass
        reformer_scale_and_mask("chunk_scale" + suffix, batch, q, keys),
        // max, subtract, exp, sum; normalisation waits for the rounds to be combined
        ops::reduce("chunk_softmax" + suffix, "softmax_unnormalised", batch, q, keys, DType::fp32,
                    {.add = 2 * keys - 1, .cmp = keys - 1, .exp = keys}, keys),
        ops::gemm("chunk_context" + suffix, {.batch = batch, .m = q, .n = d, .k = keys})};
    ops::join_group(core, std::string(ops::kChunkAttentionGroup) + suffix);
    const std::array<OpCounts, 4> paper = {ops::macs(checked_mul(pairs, d)), muls(pairs), {},
                                           ops::macs(checked_mul(pairs, d))};
    for (std::size_t i = 0; i < core.size(); ++i) emit(std::move(core[i]), paper[i]);
  }
  emit(ops::memcpy("unsort", g, checked_mul(r, n), d + 1, DType::fp32), {});
  // Per token: with one round, divide by the normaliser; with R rounds, rescale each round's numerator and
  // normaliser to the largest max (R−1 compares, R subtractions and exps, R·(d+1) multiplies), sum them
  // ((R−1)·(d+1) additions), then divide.
  const ops::OpMix combine =
      r == 1 ? ops::OpMix{.mul = d, .div = 1}
             : ops::OpMix{.mul = r * (d + 1) + d, .add = r + (r - 1) * (d + 1), .cmp = r - 1, .exp = r, .div = 1};
  emit(ops::reduce("combine_rounds", "combine_rounds", g, n, checked_mul(r, d + 1), DType::fp32, combine, d),
       {});
}

}  // namespace ecosim::detail
