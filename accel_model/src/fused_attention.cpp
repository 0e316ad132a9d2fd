// Fused (FlashAttention-style) softmax attention on the accelerator: group validation, tile choice and the
// tile sequence (see fused_attention.hpp).
#include "ecosim/accel_model/fused_attention.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <array>

#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "indexed_tile_run.hpp"

namespace ecosim::accel {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// Rows of query tile qi.
std::uint64_t tile_rows(const AttentionShape& s, std::uint64_t tq, std::uint64_t qi) {
  return std::min(tq, s.queries - qi * tq);
}

/// Extra vector-unit work of the running softmax: for every query row and every key tile after the first,
/// the old maximum's correction factor (1 subtraction, 1 exp) and the rescaled sum and output row (d + 1
/// multiplications). The trace's own softmax operations are done as well.
OpCounts online_softmax_overhead(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk) {
  std::uint64_t per_group = 0;
  for (std::uint64_t qi = 0; qi < ceil_div(s.queries, tq); ++qi)
    per_group = checked_add(per_group, checked_mul(tile_rows(s, tq, qi), key_tiles(s, tq, tk, qi) - 1));
  const std::uint64_t updates = checked_mul(s.groups, per_group);
  OpCounts c;
  c.add(OpKind::add, DType::fp32, updates);
  c.add(OpKind::exp, DType::fp32, updates);
  c.add(OpKind::mul, DType::fp32, checked_mul(updates, s.dim + 1));
  return c;
}

/// DRAM bits of a tiling: Q read and O written once, K and V of each query tile's key tiles once per query tile.
std::uint64_t fused_dram_bits(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk) {
  const std::uint64_t q_or_o = checked_product({s.groups, s.queries, s.dim, s.operand_bits});
  std::uint64_t key_rows = 0;  // per group, over the query tiles
  for (std::uint64_t qi = 0; qi < ceil_div(s.queries, tq); ++qi)
    key_rows = checked_add(key_rows, std::min(s.keys, checked_mul(key_tiles(s, tq, tk, qi), tk)));
  const std::uint64_t k_and_v = checked_product({2, s.groups, key_rows, s.dim, s.operand_bits});
  return checked_add(checked_mul(2, q_or_o), k_and_v);
}

/// (Query, key) pairs attended in the tile of rows [q0, q0 + rows) and keys [k0, k0 + cols): all, or when causal
/// Σ over its rows r of clamp(P + r + 1 − k0, 0, cols), P = keys − queries.
std::uint64_t attended_in_tile(const AttentionShape& s, std::uint64_t q0, std::uint64_t rows, std::uint64_t k0,
                               std::uint64_t cols) {
  if (!s.causal) return rows * cols;
  const std::uint64_t shift = s.keys - s.queries;  // row r attends to keys < shift + r + 1
  std::uint64_t pairs = 0;
  // rows before `first` see none of the tile's keys; from `full` on, all of them
  const std::uint64_t first = std::clamp<std::uint64_t>(k0 >= shift ? k0 - shift : 0, q0, q0 + rows);
  const std::uint64_t full =
      std::clamp<std::uint64_t>(k0 + cols >= shift + 1 ? k0 + cols - shift - 1 : 0, first, q0 + rows);
  for (std::uint64_t r = first; r < full; ++r) pairs += shift + r + 1 - k0;  // at most `cols` rows
  return pairs + (q0 + rows - full) * cols;
}

std::vector<std::uint64_t> powers_of_two_up_to(std::uint64_t n) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t t = 1;; t *= 2) {
    v.push_back(std::min(t, n));
    if (t >= n) return v;
  }
}

}  // namespace

std::uint64_t key_tiles(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk, std::uint64_t qi) {
  const std::uint64_t all = ceil_div(s.keys, tk);
  if (!s.causal) return all;
  const std::uint64_t last_row = qi * tq + tile_rows(s, tq, qi) - 1;
  return std::min(all, ceil_div(s.keys - s.queries + last_row + 1, tk));
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
  const auto causal = [](const OpRecord& r) {
    const auto it = r.params.find(std::string(ops::kCausalParam));
    return it != r.params.end() && it->second == 1;
  };
  const AttentionShape s{.groups = scores.batch,
                         .queries = scores.m,
                         .keys = scores.n,
                         .dim = scores.k,
                         .operand_bits = operand_bits(scores.a_dtype, config),
                         .causal = causal(scores)};
  for (const OpRecord& r : ops.first(kAttentionGroupRecords))
    if (causal(r) != s.causal) return std::nullopt;
  if (s.causal && s.keys < s.queries) return std::nullopt;
  const bool consistent = context.batch == s.groups && context.m == s.queries && context.n == s.dim &&
                          context.k == s.keys && scale.batch * scale.m * scale.n == s.groups * s.queries * s.keys &&
                          softmax.batch * softmax.m == s.groups * s.queries && softmax.n == s.keys &&
                          operand_bits(scores.b_dtype, config) == s.operand_bits &&
                          operand_bits(context.a_dtype, config) == s.operand_bits &&
                          operand_bits(context.b_dtype, config) == s.operand_bits;
  return consistent ? std::optional(s) : std::nullopt;
}

std::optional<FusedTiling> choose_fused_tiling(const AttentionShape& s, const AccelConfig& c) {
  const std::uint64_t half_w = c.buffer(Buffer::weights).half_bits(), half_in = c.buffer(Buffer::inputs).half_bits(),
                      half_out = c.buffer(Buffer::outputs).half_bits();
  const Fusion f = fusion(s.operand_bits, s.operand_bits);
  std::optional<FusedTiling> best;
  for (std::uint64_t tk : powers_of_two_up_to(s.keys)) {
    if (2 * tk * s.dim * s.operand_bits > half_w) break;
    for (std::uint64_t tq : powers_of_two_up_to(s.queries)) {
      if (tq * (s.dim + tk) * s.operand_bits > half_in || tq * (tk + s.dim) * c.accumulator_bits > half_out) break;
      // Array cycles of full tiles scaled to the whole problem (edge tiles are close enough to rank).
      std::uint64_t per_group = 0;
      for (std::uint64_t qi = 0; qi < ceil_div(s.queries, tq); ++qi)
        per_group = checked_add(per_group, key_tiles(s, tq, tk, qi));
      const std::uint64_t tiles = checked_mul(s.groups, per_group);
      const std::uint64_t array =
          checked_mul(tiles, tile_cycles(tq, tk, s.dim, f, c) + tile_cycles(tq, s.dim, tk, f, c));
      const std::uint64_t dram = fused_dram_bits(s, tq, tk);
      FusedTiling t{tq, tk, dram, std::max(array, dram_peak_cycles(dram, c))};
      if (!best || t.estimated_cycles < best->estimated_cycles ||
          (t.estimated_cycles == best->estimated_cycles && tq * tk > best->tq * best->tk))
        best = t;
    }
  }
  return best;
}

namespace {

enum AttentionTensor : std::uint8_t { kQ, kK, kV, kO };  // FusedAttentionRun::tensors

/// Per (group, query tile, key tile), three tiles: scores on the array, softmax on the vector unit, context on
/// the array, in the software-pipelined order of position(). Tile contents depend on the query and key tile
/// only; the vector unit's cycles are spread over the (group, query tile, key tile) triples in order.
class FusedAttentionRun : public IndexedTileRun {
 public:
  FusedAttentionRun(const AttentionShape& s, const FusedTiling& tiling, VectorWork vector, const AccelConfig& c)
      : s_(s),
        tq_full_(tiling.tq),
        tk_full_(tiling.tk),
        q_trips_(ceil_div(s.queries, tiling.tq)),
        vector_(vector),
        f_(fusion(s.operand_bits, s.operand_bits)),
        c_(c) {
    first_key_tile_.reserve(q_trips_ + 1);
    first_key_tile_.push_back(0);
    for (std::uint64_t qi = 0; qi < q_trips_; ++qi)
      first_key_tile_.push_back(checked_add(first_key_tile_.back(), key_tiles(s, tq_full_, tk_full_, qi)));
    triples_ = checked_mul(s.groups, first_key_tile_.back());
  }

  std::uint64_t tile_count() const override { return checked_mul(3, triples_); }
  /// Q, K, V and O, each [1][G][rows][dim] (O is stored at the operand width).
  std::vector<TensorShape> tensors() const override {
    const unsigned a = s_.operand_bits;
    return {{{1, s_.groups, s_.queries, s_.dim}, a},
            {{1, s_.groups, s_.keys, s_.dim}, a},
            {{1, s_.groups, s_.keys, s_.dim}, a},
            {{1, s_.groups, s_.queries, s_.dim}, a}};
  }

  /// Rows of queries (Q, O) or keys (K, V) of the tile's group, all `dim` columns: Q and K for the scores, V for
  /// the context, O when stored.
  TileBoxes boxes(std::uint64_t i, const TileWork& t) const override {
    const auto [triple, step] = position(i);
    const auto [g, qi, ki] = tile_of(triple);
    auto box = [&](std::uint8_t tensor, std::uint64_t row, std::uint64_t full, std::uint64_t total) {
      return TensorBox{tensor, {0, g, row * full, 0}, {1, 1, std::min(full, total - row * full), s_.dim}};
    };
    TileBoxes b;
    if (t.load_bits[std::size_t(Buffer::inputs)])
      b.load[std::size_t(Buffer::inputs)] = box(kQ, qi, tq_full_, s_.queries);
    if (t.load_bits[std::size_t(Buffer::weights)])
      b.load[std::size_t(Buffer::weights)] = box(step == 0 ? kK : kV, ki, tk_full_, s_.keys);
    if (t.store_bits) b.store = box(kO, qi, tq_full_, s_.queries);
    return b;
  }

  TileWork tile(std::uint64_t i) const override {
    const auto [triple, step] = position(i);
    const auto [g, qi, ki] = tile_of(triple);
    const std::uint64_t tq = std::min(tq_full_, s_.queries - qi * tq_full_);
    const std::uint64_t tk = std::min(tk_full_, s_.keys - ki * tk_full_);
    const std::uint64_t attended = attended_in_tile(s_, qi * tq_full_, tq, ki * tk_full_, tk);
    const std::uint64_t a = s_.operand_bits, acc = c_.accumulator_bits, kdiv = c_.rows * f_.spatial;
    TileWork t;
    switch (step) {
      case 0:  // S = Q·Kᵀ into the outputs buffer (a second score slot: the softmax after it may run beside it)
        t.compute_cycles = tile_cycles(tq, tk, s_.dim, f_, c_);
        t.macs = attended * s_.dim;
        if (ki == 0) t.load_bits[std::size_t(Buffer::inputs)] = tq * s_.dim * a;
        t.load_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::inputs)] = tq * s_.dim * a * ceil_div(tk, c_.cols);
        t.unit_write_bits[std::size_t(Buffer::outputs)] = tq * tk * acc * ceil_div(s_.dim * f_.passes, kdiv);
        t.unit_read_bits[std::size_t(Buffer::outputs)] = t.unit_write_bits[std::size_t(Buffer::outputs)];
        break;
      case 1:  // scale, running max/sum, P (operand width) into the inputs buffer
        t.unit = Unit::vector;
        t.beside_previous = triple + 1 < triples_;  // after the next triple's scores, which it does not read
        t.compute_cycles = vector_.cycles / triples_ + (triple < vector_.cycles % triples_ ? 1 : 0);
        t.vector_pj = vector_.pj / double(triples_);
        t.unit_read_bits[std::size_t(Buffer::outputs)] = tq * tk * acc;
        t.unit_write_bits[std::size_t(Buffer::inputs)] = tq * tk * a;
        break;
      default:  // O += P·V, O resident in the outputs buffer until the last key tile
        t.compute_cycles = tile_cycles(tq, s_.dim, tk, f_, c_);
        t.macs = attended * s_.dim;
        t.load_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::inputs)] = tq * tk * a * ceil_div(s_.dim, c_.cols);
        t.unit_write_bits[std::size_t(Buffer::outputs)] = tq * s_.dim * acc * ceil_div(tk * f_.passes, kdiv);
        t.unit_read_bits[std::size_t(Buffer::outputs)] = t.unit_write_bits[std::size_t(Buffer::outputs)];
        if (ki + 1 == first_key_tile_[qi + 1] - first_key_tile_[qi]) t.store_bits = tq * s_.dim * a;
        break;
    }
    return t;
  }
  void visit_classes(const TileClassVisitor& visit) const override { visit_each_tile(visit); }
  bool has_tiles_beside_previous() const override { return true; }

 private:
  /// Tile i's triple and step (0 scores, 1 softmax, 2 context), software-pipelined so the array has the next
  /// triple's scores to compute while the vector unit does a softmax: S₀, then per triple j: Sⱼ₊₁ (when there
  /// is one), Pⱼ, the context of j. Each tile's operands then load while an earlier tile computes.
  std::pair<std::uint64_t, int> position(std::uint64_t i) const {
    if (i == 0) return {0, 0};
    const std::uint64_t j = (i - 1) / 3;
    const bool next_scores = j + 1 < triples_;
    switch ((i - 1) % 3) {
      case 0: return next_scores ? std::pair{j + 1, 0} : std::pair{j, 1};
      case 1: return next_scores ? std::pair{j, 1} : std::pair{j, 2};
      default: return {j, 2};
    }
  }

  /// The (group, query tile, key tile) of a triple: the key tiles of each query tile in order, then the next.
  std::array<std::uint64_t, 3> tile_of(std::uint64_t triple) const {
    const std::uint64_t per_group = first_key_tile_.back(), r = triple % per_group;
    const auto qi = static_cast<std::uint64_t>(std::upper_bound(first_key_tile_.begin(), first_key_tile_.end(), r) -
                                               first_key_tile_.begin() - 1);
    return {triple / per_group, qi, r - first_key_tile_[qi]};
  }

  AttentionShape s_;
  std::uint64_t tq_full_, tk_full_, q_trips_, triples_ = 0;
  std::vector<std::uint64_t> first_key_tile_;  // per group: the triples before query tile qi (q_trips_ + 1)
  VectorWork vector_;
  Fusion f_;
  AccelConfig c_;
};

}  // namespace

std::optional<OpPlan> plan_fused_attention(std::span<const OpRecord> ops, const AccelConfig& c, const TechTable& tech) {
  const std::optional<AttentionShape> shape = attention_group(ops, c);
  if (!shape) return std::nullopt;
  const AttentionShape& s = *shape;
  const std::optional<FusedTiling> tiling = choose_fused_tiling(s, c);
  if (!tiling) return std::nullopt;
  OpCounts softmax_work = ops[1].counts;
  softmax_work += ops[2].counts;
  softmax_work += online_softmax_overhead(s, tiling->tq, tiling->tk);
  const VectorWork vector = vector_work(softmax_work, c, tech);

  OpPlan plan;
  plan.name = ops[0].group;
  plan.kind = OpClass::gemm;
  plan.mapping = fmt::format("fused {}attention: {} queries × {} keys per tile, scores on chip; array {}-bit (pf {})",
                             s.causal ? "causal " : "", tiling->tq, tiling->tk, s.operand_bits,
                             fusion(s.operand_bits, s.operand_bits).spatial);
  plan.runs.push_back(std::make_shared<FusedAttentionRun>(s, *tiling, vector, c));
  return plan;
}

}  // namespace ecosim::accel
