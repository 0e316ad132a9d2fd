// The tile sequence of a fused attention tiling (fused_attention.hpp): tile i from i alone, walked by the
// generic cursor, and the whole sequence as nested repetitions (TileRun::stretches) for the closed form.
#include <algorithm>

#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "indexed_tile_run.hpp"

namespace ecosim::accel {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

enum AttentionTensor : std::uint8_t { kQ, kK, kV, kPartial, kO };  // FusedAttentionRun::tensors

/// The intervals [cuts[i], cuts[i + 1]) of [begin, end) between the sorted distinct cut points inside it.
std::vector<std::pair<std::uint64_t, std::uint64_t>> intervals(std::uint64_t begin, std::uint64_t end,
                                                               std::vector<std::uint64_t> cuts) {
  cuts.push_back(begin);
  cuts.push_back(end);
  std::erase_if(cuts, [&](std::uint64_t c) { return c < begin || c > end; });
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) spans.emplace_back(cuts[i], cuts[i + 1]);
  return spans;
}

/// c − 1 and c for each change point c > 0: the stage of a triple depends on it and the triple after it.
std::vector<std::uint64_t> around(std::initializer_list<std::uint64_t> changes) {
  std::vector<std::uint64_t> cuts;
  for (std::uint64_t c : changes) {
    if (c > 0) cuts.push_back(c - 1);
    cuts.push_back(c);
  }
  return cuts;
}

/// Per (group, outer tile, inner tile) three tiles: scores on the array, softmax on the vector unit, context on
/// the array, in the software-pipelined order of position(). A tile depends on its triple only through whether
/// its query and key tiles are first or last (edge sizes, loads, stores) and, for the softmax, whether the
/// triple is among the first `vector.cycles % triples` (one cycle more each).
class FusedAttentionRun : public IndexedTileRun {
 public:
  FusedAttentionRun(const AttentionShape& s, const FusedTiling& tiling, VectorWork vector, const AccelConfig& c)
      : s_(s),
        order_(tiling.order),
        tq_full_(tiling.tq),
        tk_full_(tiling.tk),
        q_trips_(ceil_div(s.queries, tiling.tq)),
        k_trips_(ceil_div(s.keys, tiling.tk)),
        outer_trips_(order_ == FusedOrder::queries_outer ? q_trips_ : k_trips_),
        inner_trips_(order_ == FusedOrder::queries_outer ? k_trips_ : q_trips_),
        triples_(checked_product({s.groups, q_trips_, k_trips_})),
        vector_(vector),
        f_(fusion(s.operand_bits, s.operand_bits)),
        c_(c) {}

  std::uint64_t tile_count() const override { return checked_mul(3, triples_); }
  /// Q, K and V, each [1][G][rows][dim]; the partial output rows with their max and sum, [1][G][queries][dim + 2]
  /// at accumulator width (keys_outer); O, [1][G][queries][dim] (stored at the operand width).
  std::vector<TensorShape> tensors() const override {
    const unsigned a = s_.operand_bits;
    return {{{1, s_.groups, s_.queries, s_.dim}, a},
            {{1, s_.groups, s_.keys, s_.dim}, a},
            {{1, s_.groups, s_.keys, s_.dim}, a},
            {{1, s_.groups, s_.queries, s_.dim + 2}, unsigned(c_.accumulator_bits)},
            {{1, s_.groups, s_.queries, s_.dim}, a}};
  }

  /// Rows of queries (Q, O, partial) or keys (K, V) of the tile's group: Q, K and the partial rows for the
  /// scores, V for the context, O or the partial rows when stored.
  TileBoxes boxes(std::uint64_t i, const TileWork& t) const override {
    const Triple x = triple(position(i).first);
    auto box = [&](std::uint8_t tensor, std::uint64_t tile, std::uint64_t full, std::uint64_t total,
                   std::uint64_t width) {
      return TensorBox{tensor, {0, x.g, tile * full, 0}, {1, 1, std::min(full, total - tile * full), width}};
    };
    TileBoxes b;
    if (t.load_bits[std::size_t(Buffer::inputs)])
      b.load[std::size_t(Buffer::inputs)] = box(kQ, x.qi, tq_full_, s_.queries, s_.dim);
    if (t.load_bits[std::size_t(Buffer::weights)])
      b.load[std::size_t(Buffer::weights)] = box(position(i).second == 0 ? kK : kV, x.ki, tk_full_, s_.keys, s_.dim);
    if (t.load_bits[std::size_t(Buffer::outputs)])
      b.load[std::size_t(Buffer::outputs)] = box(kPartial, x.qi, tq_full_, s_.queries, s_.dim + 2);
    if (t.store_bits)
      b.store = x.ki + 1 == k_trips_ ? box(kO, x.qi, tq_full_, s_.queries, s_.dim)
                                     : box(kPartial, x.qi, tq_full_, s_.queries, s_.dim + 2);
    return b;
  }

  TileWork tile(std::uint64_t i) const override {
    const auto [j, step] = position(i);
    const Triple x = triple(j);
    const std::uint64_t tq = std::min(tq_full_, s_.queries - x.qi * tq_full_);
    const std::uint64_t tk = std::min(tk_full_, s_.keys - x.ki * tk_full_);
    const std::uint64_t a = s_.operand_bits, acc = c_.accumulator_bits, kdiv = c_.rows * f_.spatial;
    const bool keys_outer = order_ == FusedOrder::keys_outer;
    // Whether the triple before (in this group) used another Q tile, another K and V tile; partial rows leave
    // the chip in keys_outer when a query tile's rows do not stay resident (more than one query tile).
    const bool new_q = keys_outer ? (q_trips_ > 1 || x.ki == 0) : x.ki == 0;
    const bool new_kv = keys_outer ? x.qi == 0 : (k_trips_ > 1 || x.qi == 0);
    const bool partial = keys_outer && q_trips_ > 1;
    TileWork t;
    switch (step) {
      case 0:  // S = Q·Kᵀ into the outputs buffer (a second score slot: the softmax after it may run beside it)
        t.compute_cycles = tile_cycles(tq, tk, s_.dim, f_, c_);
        t.macs = tq * tk * s_.dim;
        if (new_q) t.load_bits[std::size_t(Buffer::inputs)] = tq * s_.dim * a;
        if (new_kv) t.load_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        if (partial && x.ki > 0) t.load_bits[std::size_t(Buffer::outputs)] = tq * (s_.dim + 2) * acc;
        t.unit_read_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::inputs)] = tq * s_.dim * a * ceil_div(tk, c_.cols);
        t.unit_write_bits[std::size_t(Buffer::outputs)] = tq * tk * acc * ceil_div(s_.dim * f_.passes, kdiv);
        t.unit_read_bits[std::size_t(Buffer::outputs)] = t.unit_write_bits[std::size_t(Buffer::outputs)];
        break;
      case 1:  // scale, running max/sum, P (operand width) into the inputs buffer
        t.unit = Unit::vector;
        t.beside_previous = j + 1 < triples_;  // after the next triple's scores, which it does not read
        t.compute_cycles = vector_.cycles / triples_ + (j < vector_.cycles % triples_ ? 1 : 0);
        t.vector_pj = vector_.pj / double(triples_);
        t.unit_read_bits[std::size_t(Buffer::outputs)] = tq * tk * acc;
        t.unit_write_bits[std::size_t(Buffer::inputs)] = tq * tk * a;
        break;
      default:  // O += P·V into the output rows, stored after the last key tile (or as partial rows)
        t.compute_cycles = tile_cycles(tq, s_.dim, tk, f_, c_);
        t.macs = tq * s_.dim * tk;
        if (new_kv) t.load_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::inputs)] = tq * tk * a * ceil_div(s_.dim, c_.cols);
        t.unit_write_bits[std::size_t(Buffer::outputs)] = tq * s_.dim * acc * ceil_div(tk * f_.passes, kdiv);
        t.unit_read_bits[std::size_t(Buffer::outputs)] = t.unit_write_bits[std::size_t(Buffer::outputs)];
        if (x.ki + 1 == k_trips_)
          t.store_bits = tq * s_.dim * a;
        else if (partial)
          t.store_bits = tq * (s_.dim + 2) * acc;
        break;
    }
    return t;
  }
  void visit_classes(const TileClassVisitor& visit) const override { visit_each_tile(visit); }
  bool has_tiles_beside_previous() const override { return true; }

  /// S₀, then the blocks (Sⱼ₊₁, Pⱼ, context j) of the triples j, by groups, outer tiles and inner tiles. A block
  /// changes only where triple j or j + 1 changes: at the first and last inner and outer tiles and at the
  /// triple where the softmax's extra cycle ends; groups differ only in that triple and in the last block
  /// (no next scores). Between those points, alike groups, outer tiles and blocks repeat.
  std::optional<TileStretch> stretches() const override {
    TileStretch all;
    all.tiles = {tile(0)};
    const std::uint64_t rem = vector_.cycles % triples_, per_group = outer_trips_ * inner_trips_;
    const std::uint64_t g_rem = rem / per_group;
    for (auto [g0, g1] : intervals(0, s_.groups, {g_rem, g_rem + 1, s_.groups - 1})) {
      TileStretch& groups = all.parts.emplace_back();
      groups.repeat = g1 - g0;
      const std::uint64_t o_rem = g0 == g_rem ? rem % per_group / inner_trips_ : outer_trips_;
      for (auto [o0, o1] : intervals(0, outer_trips_, around({1, outer_trips_ - 1, o_rem, o_rem + 1}))) {
        TileStretch& rows = groups.parts.emplace_back();
        rows.repeat = o1 - o0;
        const std::uint64_t first = (g0 * outer_trips_ + o0) * inner_trips_;
        const std::uint64_t u_rem = first <= rem && rem < first + inner_trips_ ? rem - first : inner_trips_;
        for (auto [u0, u1] : intervals(0, inner_trips_, around({1, inner_trips_ - 1, u_rem}))) {
          TileStretch& blocks = rows.parts.emplace_back();
          blocks.repeat = u1 - u0;
          const std::uint64_t j = first + u0;
          for (std::uint64_t i = 3 * j + 1; i <= std::min(3 * j + 3, tile_count() - 1); ++i)
            blocks.tiles.push_back(tile(i));
        }
      }
    }
    return all;
  }

 private:
  struct Triple {
    std::uint64_t g, qi, ki;
  };
  /// Triple j's group, query tile and key tile (the inner loop steps fastest).
  Triple triple(std::uint64_t j) const {
    const std::uint64_t inner = j % inner_trips_, outer = j / inner_trips_ % outer_trips_;
    const std::uint64_t g = j / inner_trips_ / outer_trips_;
    return order_ == FusedOrder::queries_outer ? Triple{g, outer, inner} : Triple{g, inner, outer};
  }
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

  AttentionShape s_;
  FusedOrder order_;
  std::uint64_t tq_full_, tk_full_, q_trips_, k_trips_, outer_trips_, inner_trips_, triples_;
  VectorWork vector_;
  Fusion f_;
  AccelConfig c_;
};

}  // namespace

std::shared_ptr<const TileRun> fused_attention_tiles(const AttentionShape& s, const FusedTiling& tiling,
                                                     VectorWork vector, const AccelConfig& config) {
  return std::make_shared<FusedAttentionRun>(s, tiling, vector, config);
}

}  // namespace ecosim::accel
