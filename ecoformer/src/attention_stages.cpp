// The baseline kernels' stage records (see attention_stages.hpp) and the Reformer chunk plan.
#include "attention_stages.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::ecoformer::detail {

void Reporter::operator()(OpRecord r) const {
  r.name = "attention." + r.name;
  if (!r.group.empty()) r.group = "attention." + r.group;
  sink_.record(r);
}

void Reporter::operator()(const std::vector<OpRecord>& records) const {
  for (const OpRecord& r : records) (*this)(r);
}

std::vector<OpRecord> softmax_attention_records(std::uint64_t g, std::uint64_t n, std::uint64_t keys,
                                                std::uint64_t d, DType input) {
  std::vector<OpRecord> records = {
      ops::gemm("scores", {.batch = g, .m = n, .n = keys, .k = d, .a = input, .b = input}),
      ops::eltwise("scale", "scale", g, n, keys, DType::fp32, {.mul = 1}), ops::softmax("softmax", g, n, keys),
      ops::gemm("context", {.batch = g, .m = n, .n = d, .k = keys, .b = input})};
  ops::join_group(records, ops::kSoftmaxAttentionGroup);
  return records;
}

std::vector<OpRecord> linformer_projection_records(std::uint64_t g, std::uint64_t n, std::uint64_t k,
                                                   std::uint64_t d) {
  const ops::GemmShape proj{.batch = g, .m = d, .n = k, .k = n, .b_shared = true};
  return {ops::gemm("k_proj", proj), ops::gemm("v_proj", proj)};
}

std::vector<OpRecord> performer_feature_records(const std::string& which, std::uint64_t g, std::uint64_t n,
                                                std::uint64_t d, std::uint64_t f) {
  return {ops::eltwise(which + "_scale", "scale", g, n, d, DType::fp32, {.mul = 1}),
          ops::gemm(which + "_omega", {.batch = g, .m = n, .n = f, .k = d, .b_shared = true}),
          ops::reduce(which + "_sq_norm", "sq_norm", g, n, d, DType::fp32, {.mul = d + 1, .add = d - 1}, 1),
          ops::eltwise(which + "_features", "positive_features", g, n, f, DType::fp32,
                       {.mul = 1, .add = 1, .exp = 1})};
}

std::vector<OpRecord> performer_mixing_records(std::uint64_t g, std::uint64_t n, std::uint64_t d,
                                               std::uint64_t f) {
  return {ops::gemm("kv", {.batch = g, .m = f, .n = d, .k = n}),
          ops::reduce("k_sum", "sum", g, f, n, DType::fp32, ops::sum_row(n), 1),
          ops::gemm("numerator", {.batch = g, .m = n, .n = d, .k = f}),
          ops::gemm("denominator", {.batch = g, .m = n, .n = 1, .k = f}),
          ops::reduce("normalise", "normalise", g, n, d, DType::fp32, {.mul = d, .div = 1}, d)};
}

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

std::vector<OpRecord> reformer_hashing_records(const ReformerPlan& p, std::uint64_t g, std::uint64_t d) {
  const std::uint64_t n = p.seq, r = p.rounds;
  const std::uint64_t log2n = n > 1 ? std::bit_width(n - 1) : 0;  // ⌈log2 N⌉ compares per element
  return {ops::l2_normalize("k_normalize", g, n, d),
          ops::gemm("rotations", {.batch = g, .m = n, .n = r * p.buckets / 2, .k = d, .b_shared = true}),
          ops::reduce("bucket_argmax", "argmax", g, checked_mul(n, r), p.buckets, DType::fp32,
                      {.cmp = p.buckets - 1}, 1),
          ops::reduce("sort", "sort", g, r, n, DType::int32, {.cmp = checked_mul(n, log2n)}, n),
          ops::memcpy("gather", g, checked_mul(r, n), checked_mul(3, d), DType::fp32)};
}

std::vector<OpRecord> reformer_chunk_records(const ReformerPlan& p, std::uint64_t g, std::uint64_t d) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t> shapes;  // (queries, keys) → chunks
  for (std::uint64_t i = 0; i < p.chunks; ++i) ++shapes[{p.size(i), p.keys(i)}];
  std::vector<OpRecord> records;
  std::size_t index = 0;
  for (const auto& [shape, count] : shapes) {
    const auto [q, keys] = shape;
    std::string suffix;  // (built by append: `"." + to_string` trips a false g++ 12 -Wrestrict warning)
    if (shapes.size() > 1) suffix.append(".").append(std::to_string(index++));
    const std::uint64_t batch = checked_product({g, p.rounds, count});
    const std::size_t first = records.size();
    records.push_back(ops::gemm("chunk_scores" + suffix, {.batch = batch, .m = q, .n = keys, .k = d}));
    records.push_back(reformer_scale_and_mask("chunk_scale" + suffix, batch, q, keys));
    // max, subtract, exp, sum (normalisation waits for the rounds to be combined)
    records.push_back(ops::reduce("chunk_softmax" + suffix, "softmax_unnormalised", batch, q, keys, DType::fp32,
                                  {.add = 2 * keys - 1, .cmp = keys - 1, .exp = keys}, keys));
    records.push_back(ops::gemm("chunk_context" + suffix, {.batch = batch, .m = q, .n = d, .k = keys}));
    ops::join_group(std::span(records).subspan(first), std::string(ops::kChunkAttentionGroup) + suffix);
  }
  return records;
}

std::vector<OpRecord> reformer_combine_records(const ReformerPlan& p, std::uint64_t g, std::uint64_t d) {
  const std::uint64_t r = p.rounds;
  // one round: divide by the normaliser; R rounds: rescale to the largest max, sum, divide
  const ops::OpMix combine =
      r == 1 ? ops::OpMix{.mul = d, .div = 1}
             : ops::OpMix{.mul = r * (d + 1) + d, .add = r + (r - 1) * (d + 1), .cmp = r - 1, .exp = r, .div = 1};
  return {ops::memcpy("unsort", g, checked_mul(r, p.seq), d + 1, DType::fp32),
          ops::reduce("combine_rounds", "combine_rounds", g, p.seq, checked_mul(r, d + 1), DType::fp32, combine, d)};
}

}  // namespace ecosim::ecoformer::detail
