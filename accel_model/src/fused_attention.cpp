// Fused (FlashAttention-style) softmax attention on the accelerator: group validation, the buffer and DRAM
// rules of a tiling, the mapper's choice and the plan (see fused_attention.hpp; the tiles are in
// fused_attention_run.cpp).
#include "ecosim/accel_model/fused_attention.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::accel {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// The tile sizes tried along a dimension of `dim` whose tiles fit up to `most` (≥ 1): the powers of two below
/// it, `most` itself and the size of as many tiles balanced (the same trips, the edge tile evened out).
std::vector<std::uint64_t> fitting_sizes(std::uint64_t dim, std::uint64_t most) {
  most = std::min(most, dim);
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t t = 1; t < most; t *= 2) sizes.push_back(t);
  sizes.push_back(most);
  sizes.push_back(ceil_div(dim, ceil_div(dim, most)));
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

/// The most keys per tile: a K and a V tile of them in half the weights buffer.
std::uint64_t most_keys(const AttentionShape& s, const AccelConfig& c) {
  return c.buffer(Buffer::weights).half_bits() / checked_product({2, s.dim, s.operand_bits});
}
/// The most queries per tile with tk keys: their Q and P tiles in half the inputs buffer; their scores,
/// output rows and running max and sum at accumulator width in half the outputs buffer.
std::uint64_t most_queries(const AttentionShape& s, std::uint64_t tk, const AccelConfig& c) {
  return std::min(
      c.buffer(Buffer::inputs).half_bits() / checked_mul(checked_add(s.dim, tk), s.operand_bits),
      c.buffer(Buffer::outputs).half_bits() / checked_mul(checked_add(tk, checked_add(s.dim, 2)), c.accumulator_bits));
}

/// Whether tiling a is better than b: less energy (relative differences below 1e-9 are rounding), then fewer
/// DRAM bits, then fewer cycles, then larger tiles; b (enumerated first) otherwise.
bool better_fused(const FusedTiling& a, const FusedTiling& b) {
  if (std::abs(a.energy_pj - b.energy_pj) > 1e-9 * std::max(a.energy_pj, b.energy_pj)) return a.energy_pj < b.energy_pj;
  if (a.dram_bits != b.dram_bits) return a.dram_bits < b.dram_bits;
  if (a.pipeline_cycles != b.pipeline_cycles) return a.pipeline_cycles < b.pipeline_cycles;
  return a.tq * a.tk > b.tq * b.tk;
}

}  // namespace

std::string FusedTiling::describe() const {
  return fmt::format("{} queries × {} keys per tile, {} outer", tq, tk,
                     order == FusedOrder::queries_outer ? "queries" : "keys");
}

bool fused_tiles_fit(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk, const AccelConfig& c) {
  return tk >= 1 && tk <= most_keys(s, c) && tq >= 1 && tq <= most_queries(s, tk, c);
}

std::uint64_t fused_dram_bits(const AttentionShape& s, FusedOrder order, std::uint64_t tq, std::uint64_t tk,
                              const AccelConfig& c) {
  const std::uint64_t q_trips = ceil_div(s.queries, tq), k_trips = ceil_div(s.keys, tk);
  const std::uint64_t q_or_o = checked_product({s.queries, s.dim, s.operand_bits});
  const std::uint64_t k_and_v = checked_product({2, s.keys, s.dim, s.operand_bits});
  std::uint64_t bits = 0;
  if (order == FusedOrder::queries_outer) {
    bits = checked_add(checked_mul(2, q_or_o), checked_mul(k_trips > 1 ? q_trips : 1, k_and_v));
  } else {
    const bool partial = q_trips > 1;
    const std::uint64_t partial_rows = checked_product({s.queries, s.dim + 2, c.accumulator_bits});
    bits = checked_add(checked_add(checked_mul(partial ? k_trips : 1, q_or_o), q_or_o), k_and_v);
    if (partial) bits = checked_add(bits, checked_product({2, k_trips - 1, partial_rows}));
  }
  return checked_mul(s.groups, bits);
}

std::optional<AttentionShape> attention_group(std::span<const OpRecord> ops, const AccelConfig& config) {
  if (ops.size() < kAttentionGroupRecords || ops[0].group.empty()) return std::nullopt;
  if (ops.size() > kAttentionGroupRecords && ops[kAttentionGroupRecords].group == ops[0].group)
    return std::nullopt;  // a longer group is not one softmax attention
  constexpr std::array<OpClass, kAttentionGroupRecords> kinds = {OpClass::gemm, OpClass::eltwise, OpClass::reduce,
                                                                 OpClass::gemm};
  for (std::size_t i = 0; i < kAttentionGroupRecords; ++i)
    if (ops[i].group != ops[0].group || ops[i].kind != kinds[i]) return std::nullopt;
  const OpRecord &scores = ops[0], &scale = ops[1], &softmax = ops[2], &context = ops[3];
  // Causal groups are not fused yet: their ops run one by one (each computing its whole rectangle).
  for (const OpRecord& r : ops.first(kAttentionGroupRecords))
    if (const auto it = r.params.find(std::string(ops::kCausalParam)); it != r.params.end() && it->second == 1)
      return std::nullopt;
  const AttentionShape s{scores.batch, scores.m, scores.n, scores.k, operand_bits(scores.a_dtype, config)};
  const bool consistent = s.groups && s.queries && s.keys && s.dim && context.batch == s.groups &&
                          context.m == s.queries && context.n == s.dim && context.k == s.keys &&
                          scale.batch * scale.m * scale.n == s.groups * s.queries * s.keys &&
                          softmax.batch * softmax.m == s.groups * s.queries && softmax.n == s.keys &&
                          operand_bits(scores.b_dtype, config) == s.operand_bits &&
                          operand_bits(context.a_dtype, config) == s.operand_bits &&
                          operand_bits(context.b_dtype, config) == s.operand_bits;
  return consistent ? std::optional(s) : std::nullopt;
}

OpCounts fused_softmax_work(const OpCounts& records, const AttentionShape& s, std::uint64_t tk) {
  const std::uint64_t rows = checked_mul(s.groups, s.queries), extra_tiles = ceil_div(s.keys, tk) - 1;
  const std::uint64_t updates = checked_mul(rows, extra_tiles);
  OpCounts c = records;
  c.add(OpKind::add, DType::fp32, updates);
  c.add(OpKind::exp, DType::fp32, updates);
  c.add(OpKind::mul, DType::fp32, checked_mul(updates, s.dim + 1));
  return c;
}

std::optional<FusedTiling> choose_fused_tiling(const AttentionShape& s, const OpCounts& softmax, const AccelConfig& c,
                                               const TechTable& tech) {
  const std::uint64_t tk_most = most_keys(s, c);
  std::optional<FusedTiling> best;
  for (FusedOrder order : {FusedOrder::queries_outer, FusedOrder::keys_outer}) {
    if (tk_most == 0) break;
    for (std::uint64_t tk : fitting_sizes(s.keys, tk_most)) {
      const std::uint64_t tq_most = most_queries(s, tk, c);
      if (tq_most == 0) continue;
      const VectorWork vector = vector_work(fused_softmax_work(softmax, s, tk), c, tech);
      for (std::uint64_t tq : fitting_sizes(s.queries, tq_most)) {
        FusedTiling t{order, tq, tk, fused_dram_bits(s, order, tq, tk, c)};
        const OpRow row = closed_form_row({"", OpClass::gemm, "", {fused_attention_tiles(s, t, vector, c)}}, c, false);
        t.pipeline_cycles = row.cycles;
        t.energy_pj = row.energy.total_pj();
        if (!best || better_fused(t, *best)) best = t;
      }
    }
  }
  return best;
}

std::optional<FusedPlan> plan_fused_attention(std::span<const OpRecord> ops, const AccelConfig& c,
                                              const TechTable& tech) {
  const std::optional<AttentionShape> shape = attention_group(ops, c);
  if (!shape) return std::nullopt;
  const AttentionShape& s = *shape;
  OpCounts softmax = ops[1].counts;
  softmax += ops[2].counts;
  const std::optional<FusedTiling> tiling = choose_fused_tiling(s, softmax, c, tech);
  if (!tiling) return std::nullopt;
  const VectorWork vector = vector_work(fused_softmax_work(softmax, s, tiling->tk), c, tech);
  FusedPlan fused{{}, *tiling};
  fused.plan.name = ops[0].group;
  fused.plan.kind = OpClass::gemm;
  fused.plan.mapping = fmt::format("fused attention: {}, scores on chip; array {}-bit (pf {})", tiling->describe(),
                                   s.operand_bits, fusion(s.operand_bits, s.operand_bits).spatial);
  fused.plan.runs.push_back(fused_attention_tiles(s, *tiling, vector, c));
  return fused;
}

}  // namespace ecosim::accel
