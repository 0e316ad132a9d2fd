// Fused (FlashAttention-style) softmax attention on the accelerator: group validation, the tiles a causal
// group visits, the buffer and DRAM rules of a tiling, the mapper's choice and the plan (see fused_attention.hpp; the
// tiles are in fused_attention_run.cpp).
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
/// The most query rows per tile with tk keys: their Q and P tiles in half the inputs buffer; their scores,
/// output rows and running max and sum at accumulator width in half the outputs buffer.
std::uint64_t most_queries(const AttentionShape& s, std::uint64_t tk, const AccelConfig& c) {
  return std::min(
      c.buffer(Buffer::inputs).half_bits() / checked_mul(checked_add(s.dim, tk), s.operand_bits),
      c.buffer(Buffer::outputs).half_bits() / checked_mul(checked_add(tk, checked_add(s.dim, 2)), c.accumulator_bits));
}

/// The (query, key) pairs attended by `count` positions from p0, one row each, × keys [k0, k0 + cols): all, or
/// when causal those with key < keys − queries + position + 1.
std::uint64_t attended_by_positions(const AttentionShape& s, std::uint64_t p0, std::uint64_t count, std::uint64_t k0,
                                    std::uint64_t cols) {
  if (!s.causal) return checked_mul(count, cols);
  const std::uint64_t shift = s.keys - s.queries;  // position p attends to the keys < shift + p + 1
  // positions before `first` see none of the tile's keys; from `full` on, all of them; position p between sees
  // shift + p + 1 − k0 (1 at `first` when it is past p0), an arithmetic series
  const std::uint64_t first = std::clamp<std::uint64_t>(k0 > shift ? k0 - shift : 0, p0, p0 + count);
  const std::uint64_t full =
      std::clamp<std::uint64_t>(k0 + cols > shift + 1 ? k0 + cols - shift - 1 : 0, first, p0 + count);
  const std::uint64_t n = full - first, seen_first = shift + first + 1 - k0, seen_last = shift + full - k0;
  const std::uint64_t series = n == 0       ? 0
                               : n % 2 == 0 ? checked_mul(n / 2, seen_first + seen_last)
                                            : checked_mul(n, (seen_first + seen_last) / 2);
  return checked_add(series, checked_mul(p0 + count - full, cols));
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

std::uint64_t key_tiles_visited(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk, std::uint64_t qi) {
  if (!s.causal) return ceil_div(s.keys, tk);
  const std::uint64_t last_row = std::min(s.query_rows(), checked_mul(qi + 1, tq)) - 1;
  return ceil_div(s.keys - s.queries + last_row / s.heads + 1, tk);  // its keys attended: ≤ keys
}

std::uint64_t first_query_tile(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk, std::uint64_t ki) {
  if (!s.causal) return 0;
  // position p sees keys ≤ shift + p: the first position seeing the key tile's first key, its first row
  const std::uint64_t first_key = checked_mul(ki, tk), shift = s.keys - s.queries;
  return checked_mul(first_key > shift ? first_key - shift : 0, s.heads) / tq;
}

std::uint64_t attended_in_tile(const AttentionShape& s, std::uint64_t q0, std::uint64_t rows, std::uint64_t k0,
                               std::uint64_t cols) {
  if (rows == 0) return 0;
  const std::uint64_t h = s.heads, end = q0 + rows, p_first = q0 / h, p_last = (end - 1) / h;
  if (p_first == p_last) return checked_mul(rows, attended_by_positions(s, p_first, 1, k0, cols));
  // the first and last positions' rows in the tile, and the whole positions between (h rows each)
  const std::uint64_t head = (p_first + 1) * h - q0, tail = end - p_last * h;
  std::uint64_t pairs = checked_add(checked_mul(head, attended_by_positions(s, p_first, 1, k0, cols)),
                                    checked_mul(tail, attended_by_positions(s, p_last, 1, k0, cols)));
  return checked_add(pairs, checked_mul(h, attended_by_positions(s, p_first + 1, p_last - p_first - 1, k0, cols)));
}

std::uint64_t fused_dram_bits(const AttentionShape& s, FusedOrder order, std::uint64_t tq, std::uint64_t tk,
                              const AccelConfig& c) {
  const std::uint64_t rows = s.query_rows(), q_trips = ceil_div(rows, tq), k_trips = ceil_div(s.keys, tk);
  const std::uint64_t last_rows = rows - (q_trips - 1) * tq;  // of the last query tile
  const std::uint64_t row_bits = checked_mul(s.dim, s.operand_bits);
  std::uint64_t bits = checked_mul(rows, row_bits);  // O, once
  if (order == FusedOrder::queries_outer) {
    bits = checked_add(bits, checked_mul(rows, row_bits));  // Q, once
    // K and V rows: each query tile's key tiles, but tile 0 when the query tile before used it alone
    std::uint64_t key_rows = 0, visited_before = 0;
    for (std::uint64_t qi = 0; qi < q_trips; ++qi) {
      const std::uint64_t visited = key_tiles_visited(s, tq, tk, qi);
      key_rows = checked_add(key_rows, std::min(s.keys, checked_mul(visited, tk)));
      if (qi > 0 && visited_before == 1) key_rows -= std::min(tk, s.keys);
      visited_before = visited;
    }
    bits = checked_add(bits, checked_mul(2, checked_mul(key_rows, row_bits)));
  } else {
    // K and V once; Q per key tile for its query tiles, and partial rows between each query tile's key tiles,
    // but the last query tile's while key tiles visit it alone one after another
    bits = checked_add(bits, checked_mul(2, checked_mul(s.keys, row_bits)));
    std::uint64_t q_rows = 0, alone_after = 0;  // key tiles after the first visiting the last query tile alone
    for (std::uint64_t ki = 0; ki < k_trips; ++ki) {
      const std::uint64_t first = first_query_tile(s, tq, tk, ki);
      q_rows = checked_add(q_rows, rows - first * tq);
      if (ki > 0 && first == q_trips - 1) ++alone_after;
    }
    std::uint64_t partial_rows = 0;  // query rows × key tiles after their first
    for (std::uint64_t qi = 0; qi < q_trips; ++qi)
      partial_rows =
          checked_add(partial_rows, checked_mul(std::min(tq, rows - qi * tq), key_tiles_visited(s, tq, tk, qi) - 1));
    q_rows -= alone_after * last_rows;
    partial_rows -= alone_after * last_rows;
    bits = checked_add(bits, checked_mul(q_rows, row_bits));
    bits = checked_add(bits, checked_product({2, partial_rows, s.dim + 2, c.accumulator_bits}));
  }
  return checked_mul(s.groups, bits);
}

std::size_t group_records(std::span<const OpRecord> ops) {
  if (ops.empty() || ops[0].group.empty()) return 0;
  std::size_t n = 1;
  while (n < ops.size() && ops[n].group == ops[0].group) ++n;
  return n;
}

std::optional<AttentionShape> attention_group(std::span<const OpRecord> ops, const AccelConfig& config) {
  const std::size_t n = group_records(ops);
  if (n < 3 || n > kMaxAttentionGroupRecords) return std::nullopt;
  const std::span<const OpRecord> scored = ops.subspan(1, n - 3);  // the elementwise ops on the scores
  if (ops[0].kind != OpClass::gemm || ops[n - 2].kind != OpClass::reduce || ops[n - 1].kind != OpClass::gemm ||
      !std::all_of(scored.begin(), scored.end(), [](const OpRecord& r) { return r.kind == OpClass::eltwise; }))
    return std::nullopt;
  const OpRecord &scores = ops[0], &softmax = ops[n - 2], &context = ops[n - 1];
  const auto causal = [](const OpRecord& r) { return r.param(ops::kCausalParam) == 1; };
  const auto window = [](const OpRecord& r) { return r.param(ops::kWindowParam); };
  const auto kv_groups = [](const OpRecord& r) { return r.param(ops::kKvGroupsParam); };
  const std::uint64_t g = scores.batch, kv = kv_groups(scores);
  const bool grouped = causal(scores) && kv && kv < g && g % kv == 0;  // the query heads sharing a K/V head
  const AttentionShape s{.groups = grouped ? kv : g,
                         .queries = scores.m,
                         .keys = scores.n,
                         .dim = scores.k,
                         .operand_bits = operand_bits(scores.a_dtype, config),
                         .causal = causal(scores),
                         .window = window(scores),
                         .heads = grouped ? g / kv : 1};
  for (const OpRecord& r : ops.first(n))
    if (causal(r) != s.causal || window(r) != s.window || kv_groups(r) != kv)
      return std::nullopt;                                  // not one (causal, windowed, grouped) attention
  if (s.window && !s.causal) return std::nullopt;           // a window bounds a causal attention's keys only
  if (s.causal && s.keys < s.queries) return std::nullopt;  // a query would attend to no key
  const bool consistent =
      g && s.queries && s.keys && s.dim && context.batch == g && context.m == s.queries && context.n == s.dim &&
      context.k == s.keys &&
      std::all_of(scored.begin(), scored.end(),
                  [&](const OpRecord& r) { return r.batch * r.m * r.n == g * s.queries * s.keys; }) &&
      softmax.batch * softmax.m == g * s.queries && softmax.n == s.keys &&
      operand_bits(scores.b_dtype, config) == s.operand_bits &&
      operand_bits(context.a_dtype, config) == s.operand_bits &&
      operand_bits(context.b_dtype, config) == s.operand_bits;
  return consistent ? std::optional(s) : std::nullopt;
}

std::uint64_t score_operand_bytes(std::span<const OpRecord> ops) {
  const std::size_t n = group_records(ops);
  if (n < 3) return 0;
  const std::uint64_t scores = ops[0].counts.written_bytes();
  std::uint64_t extra = 0;
  for (const OpRecord& r : ops.subspan(1, n - 3))
    if (r.counts.read_bytes() > scores) extra = checked_add(extra, r.counts.read_bytes() - scores);
  return extra;
}

OpCounts fused_softmax_work(const OpCounts& records, const AttentionShape& s, std::uint64_t tq, std::uint64_t tk) {
  std::uint64_t rows_after_first = 0;  // per group: query rows × key tiles visited after the first
  const std::uint64_t rows = s.query_rows();
  for (std::uint64_t qi = 0; qi < ceil_div(rows, tq); ++qi)
    rows_after_first =
        checked_add(rows_after_first, checked_mul(std::min(tq, rows - qi * tq), key_tiles_visited(s, tq, tk, qi) - 1));
  const std::uint64_t updates = checked_mul(s.groups, rows_after_first);
  OpCounts c = records;
  c.add(OpKind::add, DType::fp32, updates);
  c.add(OpKind::exp, DType::fp32, updates);
  c.add(OpKind::mul, DType::fp32, checked_mul(updates, s.dim + 1));
  return c;
}

std::optional<FusedTiling> choose_fused_tiling(const AttentionShape& s, const OpCounts& softmax, const AccelConfig& c,
                                               const TechTable& tech) {
  struct Candidate {
    FusedTiling tiling;
    VectorWork vector;
    double least_pj = 0;  // a lower bound of its energy: its DRAM bits, its vector work, leakage while they move
    bool costed = false;
  };
  std::vector<Candidate> candidates;  // in enumeration order
  const std::uint64_t tk_most = most_keys(s, c);
  for (FusedOrder order : {FusedOrder::queries_outer, FusedOrder::keys_outer}) {
    if (tk_most == 0) break;
    for (std::uint64_t tk : fitting_sizes(s.keys, tk_most)) {
      const std::uint64_t tq_most = most_queries(s, tk, c);
      if (tq_most == 0) continue;
      for (std::uint64_t tq : fitting_sizes(s.query_rows(), tq_most)) {
        Candidate& x = candidates.emplace_back();
        x.tiling = {order, tq, tk, fused_dram_bits(s, order, tq, tk, c)};
        x.vector = vector_work(fused_softmax_work(softmax, s, tq, tk), c, tech);
        OpRow least;
        least.cycles = dram_peak_cycles(x.tiling.dram_bits, c);  // the DMA moves one transfer at a time
        charge_leakage(least, c);
        least.energy.dram_pj = double(x.tiling.dram_bits) * c.dram_pj_per_bit;
        least.energy.vector_pj = x.vector.pj;
        x.least_pj = least.energy.total_pj();
      }
    }
  }
  // Costed by the closed form from the least bound up, until a bound passes the least energy found (with a margin
  // far above better_fused's rounding tolerance): a tiling left out cannot win. Each costs a few hundred TileWork
  // (non-causal) or a few per outer tile (causal), so this prunes most of a causal search's time.
  std::vector<std::size_t> by_bound(candidates.size());
  for (std::size_t i = 0; i < by_bound.size(); ++i) by_bound[i] = i;
  std::stable_sort(by_bound.begin(), by_bound.end(),
                   [&](std::size_t a, std::size_t b) { return candidates[a].least_pj < candidates[b].least_pj; });
  double least_found = 0;
  for (std::size_t i : by_bound) {
    Candidate& x = candidates[i];
    if (i != by_bound.front() && x.least_pj > least_found * (1 + 1e-6)) break;
    const OpRow row =
        closed_form_row({"", OpClass::gemm, "", {fused_attention_tiles(s, x.tiling, x.vector, c)}}, c, false);
    x.tiling.pipeline_cycles = row.cycles;
    x.tiling.energy_pj = row.energy.total_pj();
    x.costed = true;
    least_found = i == by_bound.front() ? x.tiling.energy_pj : std::min(least_found, x.tiling.energy_pj);
  }
  std::optional<FusedTiling> best;
  for (const Candidate& x : candidates)
    if (x.costed && (!best || better_fused(x.tiling, *best))) best = x.tiling;
  return best;
}

std::optional<FusedTiling> FusedTilingMemo::choose(const AttentionShape& s, const OpCounts& softmax) {
  for (const Chosen& known : chosen_)
    if (known.shape == s && known.softmax == softmax) return known.tiling;
  Chosen chosen{s, softmax, choose_fused_tiling(s, softmax, config_, tech_)};
  if (chosen_.size() < kCapacity)
    chosen_.push_back(chosen);
  else
    chosen_[next_++ % kCapacity] = chosen;
  return chosen.tiling;
}

std::optional<FusedPlan> plan_fused_attention(std::span<const OpRecord> ops, const AccelConfig& c,
                                              const TechTable& tech, FusedTilingMemo* memo) {
  const std::optional<AttentionShape> shape = attention_group(ops, c);
  if (!shape || shape->window) return std::nullopt;   // no band in the fused mapping: a window runs unfused (in strips)
  if (score_operand_bytes(ops)) return std::nullopt;  // a mask or bias it would not read
  const AttentionShape& s = *shape;
  OpCounts softmax;  // the vector unit's: the elementwise ops on the scores and the softmax
  for (const OpRecord& r : ops.subspan(1, group_records(ops) - 2)) softmax += r.counts;
  const std::optional<FusedTiling> tiling = memo ? memo->choose(s, softmax) : choose_fused_tiling(s, softmax, c, tech);
  if (!tiling) return std::nullopt;
  const VectorWork vector = vector_work(fused_softmax_work(softmax, s, tiling->tq, tiling->tk), c, tech);
  FusedPlan fused{{}, *tiling};
  fused.plan.name = ops[0].group;
  fused.plan.kind = OpClass::gemm;
  fused.plan.mapping = fmt::format(
      "fused {}attention: {}{}, scores on chip; array {}-bit (pf {})", s.causal ? "causal " : "", tiling->describe(),
      s.heads > 1 ? fmt::format(", rows of {} query heads sharing a K/V head", s.heads) : std::string(), s.operand_bits,
      fusion(s.operand_bits, s.operand_bits, c).spatial);
  fused.plan.runs.push_back(fused_attention_tiles(s, *tiling, vector, c));
  return fused;
}

}  // namespace ecosim::accel
