// The tile sequence of a fused attention tiling (fused_attention.hpp), causal or not: tile i from i alone,
// walked by the generic cursor, and the whole sequence as nested repetitions (TileRun::stretches) for the
// closed form.
#include <algorithm>

#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "indexed_tile_run.hpp"

namespace ecosim::accel {

namespace {

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
std::vector<std::uint64_t> around(const std::vector<std::uint64_t>& changes) {
  std::vector<std::uint64_t> cuts;
  for (std::uint64_t c : changes) {
    if (c > 0) cuts.push_back(c - 1);
    cuts.push_back(c);
  }
  return cuts;
}

/// Per (group, outer tile, inner tile) visited three tiles: scores on the array, softmax on the vector unit,
/// context on the array, in the software-pipelined order of position(). Outer tile o visits the inner tiles
/// [inner_begin(o), inner_end(o)) (all, or the causal ones). A tile depends on its triple only through its
/// query and key tiles' sizes, its attended pairs (causal), whether the triples beside it use the same query
/// or key tile (loads, stores) and, for the softmax, whether the triple is among the first
/// `vector.cycles % triples` (one cycle more each).
class FusedAttentionRun : public IndexedTileRun {
 public:
  FusedAttentionRun(const AttentionShape& s, const FusedTiling& tiling, VectorWork vector, const AccelConfig& c)
      : s_(s),
        order_(tiling.order),
        tq_full_(tiling.tq),
        tk_full_(tiling.tk),
        q_trips_(ceil_div(s.query_rows(), tiling.tq)),
        k_trips_(ceil_div(s.keys, tiling.tk)),
        outer_trips_(order_ == FusedOrder::queries_outer ? q_trips_ : k_trips_),
        inner_trips_(order_ == FusedOrder::queries_outer ? k_trips_ : q_trips_),
        vector_(vector),
        f_(fusion(s.operand_bits, s.operand_bits, c)),
        c_(c) {
    if (s.causal) {  // the triples before each outer tile, per group
      row_start_.reserve(outer_trips_ + 1);
      row_start_.push_back(0);
      for (std::uint64_t o = 0; o < outer_trips_; ++o)
        row_start_.push_back(checked_add(row_start_.back(), inner_end(o) - inner_begin(o)));
    }
    per_group_ = row_first(outer_trips_);
    triples_ = checked_mul(s.groups, per_group_);
  }

  std::uint64_t tile_count() const override { return checked_mul(3, triples_); }
  /// Q, K and V, each [1][G][rows][dim] (a query position's heads consecutive rows); the partial output rows with
  /// their max and sum, [1][G][query rows][dim + 2] at accumulator width (keys_outer); O, [1][G][query rows][dim]
  /// (stored at the operand width).
  std::vector<TensorShape> tensors() const override {
    const unsigned a = s_.operand_bits;
    const std::uint64_t rows = s_.query_rows();
    return {{{1, s_.groups, rows, s_.dim}, a},
            {{1, s_.groups, s_.keys, s_.dim}, a},
            {{1, s_.groups, s_.keys, s_.dim}, a},
            {{1, s_.groups, rows, s_.dim + 2}, unsigned(c_.accumulator_bits)},
            {{1, s_.groups, rows, s_.dim}, a}};
  }

  /// Rows of queries (Q, O, partial) or keys (K, V) of the tile's group: Q, K and the partial rows for the
  /// scores, V for the context, O or the partial rows when stored.
  TileBoxes boxes(std::uint64_t i, const TileWork& t) const override {
    const Triple x = triple(position(i).first);
    auto box = [&](std::uint8_t tensor, std::uint64_t tile, std::uint64_t full, std::uint64_t total,
                   std::uint64_t width) {
      return TensorBox{tensor, {0, x.g, tile * full, 0}, {1, 1, std::min(full, total - tile * full), width}};
    };
    const std::uint64_t rows = s_.query_rows();
    TileBoxes b;
    if (t.load_bits[std::size_t(Buffer::inputs)])
      b.load[std::size_t(Buffer::inputs)] = box(kQ, x.qi, tq_full_, rows, s_.dim);
    if (t.load_bits[std::size_t(Buffer::weights)])
      b.load[std::size_t(Buffer::weights)] = box(position(i).second == 0 ? kK : kV, x.ki, tk_full_, s_.keys, s_.dim);
    if (t.load_bits[std::size_t(Buffer::outputs)])
      b.load[std::size_t(Buffer::outputs)] = box(kPartial, x.qi, tq_full_, rows, s_.dim + 2);
    if (t.store_bits)
      b.store =
          last_key_tile(x) ? box(kO, x.qi, tq_full_, rows, s_.dim) : box(kPartial, x.qi, tq_full_, rows, s_.dim + 2);
    return b;
  }

  TileWork tile(std::uint64_t i) const override {
    const auto [j, step] = position(i);
    const Triple x = triple(j);
    const std::uint64_t tq = std::min(tq_full_, s_.query_rows() - x.qi * tq_full_);
    const std::uint64_t tk = std::min(tk_full_, s_.keys - x.ki * tk_full_);
    const std::uint64_t macs = attended_in_tile(s_, x.qi * tq_full_, tq, x.ki * tk_full_, tk) * s_.dim;
    const std::uint64_t a = s_.operand_bits, acc = c_.accumulator_bits, kdiv = c_.rows * f_.spatial;
    // The triples before and after in this group: a Q or K and V tile is loaded when the one before used
    // another; a query tile's output rows stay on chip while the next triple uses the same query tile, and
    // leave as partial rows (with max and sum) before another key tile of theirs otherwise.
    const std::uint64_t local = j % per_group_;
    const bool first = local == 0, last = local + 1 == per_group_;
    const bool new_q = first || triple(j - 1).qi != x.qi, new_kv = first || triple(j - 1).ki != x.ki;
    const bool rows_stay = !last && triple(j + 1).qi == x.qi;
    TileWork t;
    switch (step) {
      case 0:  // S = Q·Kᵀ into the outputs buffer (a second score slot: the softmax after it may run beside it)
        t.compute_cycles = tile_cycles(tq, tk, s_.dim, f_, c_);
        t.macs = macs;
        if (new_q) t.load_bits[std::size_t(Buffer::inputs)] = tq * s_.dim * a;
        if (new_kv) t.load_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        if (new_q && x.ki > 0) t.load_bits[std::size_t(Buffer::outputs)] = tq * (s_.dim + 2) * acc;
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
      default:  // O += P·V into the output rows, stored after the query tile's last key tile (or as partial rows)
        t.compute_cycles = tile_cycles(tq, s_.dim, tk, f_, c_);
        t.macs = macs;
        if (new_kv) t.load_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::weights)] = tk * s_.dim * a;
        t.unit_read_bits[std::size_t(Buffer::inputs)] = tq * tk * a * ceil_div(s_.dim, c_.cols);
        t.unit_write_bits[std::size_t(Buffer::outputs)] = tq * s_.dim * acc * ceil_div(tk * f_.passes, kdiv);
        t.unit_read_bits[std::size_t(Buffer::outputs)] = t.unit_write_bits[std::size_t(Buffer::outputs)];
        if (last_key_tile(x))
          t.store_bits = tq * s_.dim * a;
        else if (!rows_stay)
          t.store_bits = tq * (s_.dim + 2) * acc;
        break;
    }
    return t;
  }
  bool has_tiles_beside_previous() const override { return true; }

  /// S₀, then the blocks (Sⱼ₊₁, Pⱼ, context j) of the triples j, by groups, outer tiles and inner tiles. A block
  /// changes only where triple j or j + 1 changes: at the first and last inner and outer tiles, at the triple
  /// where the softmax's extra cycle ends and, causal, at the diagonal triples (some pairs masked) and the one
  /// after them; groups differ only in that triple and in the last block (no next scores). Between those
  /// points, alike groups, outer tiles and blocks repeat. Causal outer tiles differ in their inner tiles each.
  std::optional<TileStretch> stretches() const override {
    TileStretch all;
    all.tiles = {tile(0)};
    const std::uint64_t rem = vector_.cycles % triples_, g_rem = rem / per_group_;
    for (auto [g0, g1] : intervals(0, s_.groups, {g_rem, g_rem + 1, s_.groups - 1})) {
      TileStretch& groups = all.parts.emplace_back();
      groups.repeat = g1 - g0;
      const std::uint64_t o_rem = g0 == g_rem ? outer_of(rem % per_group_) : outer_trips_;
      for (auto [o0, o1] : outer_intervals(o_rem)) {
        TileStretch& rows = groups.parts.emplace_back();
        rows.repeat = o1 - o0;
        const std::uint64_t first = g0 * per_group_ + row_first(o0);
        for (auto [u0, u1] : block_intervals(g0, o0)) {
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

  /// At a block's start (tile 1 + 3b, b ≥ 1), the blocks from b that repeat block b − 1: those of its interval of
  /// alike blocks (stretches()) after it, three tiles a period.
  RepeatAhead repeat_after(std::uint64_t next) const override {
    if (next < 4 || (next - 1) % 3 != 0) return {};
    const std::uint64_t b = (next - 1) / 3, g = b / per_group_, o = outer_of(b % per_group_);
    const std::uint64_t first = g * per_group_ + row_first(o);
    if (b == first) return {};  // the row's first block: block b − 1 lies in another row
    for (auto [u0, u1] : block_intervals(g, o))
      if (u0 + first < b && b < u1 + first) return {3, std::min(u1 + first, triples_ - 1) - b};
    return {};
  }

 private:
  struct Triple {
    std::uint64_t g, qi, ki;
  };
  /// The intervals [u₀, u₁) of alike blocks among the inner tiles of group g's outer tile o, counted from the
  /// row's first triple: apart are the first, the last, the one where the softmax's extra cycle ends and, causal,
  /// the diagonal ones and the one after them (each with the block before it, around()).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> block_intervals(std::uint64_t g, std::uint64_t o) const {
    const std::uint64_t rem = vector_.cycles % triples_;
    const std::uint64_t first = g * per_group_ + row_first(o), begin = inner_begin(o), count = inner_end(o) - begin;
    std::vector<std::uint64_t> changes = {1, count - 1};
    if (first <= rem && rem < first + count) changes.push_back(rem - first);
    const auto [diagonal_begin, diagonal_end] = diagonal(o);
    for (std::uint64_t u = diagonal_begin; u <= diagonal_end + 1 && u < inner_end(o); ++u) changes.push_back(u - begin);
    return intervals(0, count, around(changes));
  }
  /// The inner tiles outer tile o visits: [inner_begin(o), inner_end(o)).
  std::uint64_t inner_begin(std::uint64_t o) const {
    return order_ == FusedOrder::queries_outer ? 0 : first_query_tile(s_, tq_full_, tk_full_, o);
  }
  std::uint64_t inner_end(std::uint64_t o) const {
    return order_ == FusedOrder::queries_outer ? key_tiles_visited(s_, tq_full_, tk_full_, o) : q_trips_;
  }
  /// The triples of a group before outer tile o (0 ≤ o ≤ outer_trips_), and the outer tile of the group's
  /// triple r.
  std::uint64_t row_first(std::uint64_t o) const { return s_.causal ? row_start_[o] : o * inner_trips_; }
  std::uint64_t outer_of(std::uint64_t r) const {
    if (!s_.causal) return r / inner_trips_;
    return std::uint64_t(std::upper_bound(row_start_.begin(), row_start_.end(), r) - row_start_.begin()) - 1;
  }
  /// Triple j's group, query tile and key tile (the inner loop steps fastest).
  Triple triple(std::uint64_t j) const {
    const std::uint64_t g = j / per_group_, r = j % per_group_, outer = outer_of(r);
    const std::uint64_t inner = inner_begin(outer) + (r - row_first(outer));
    return order_ == FusedOrder::queries_outer ? Triple{g, outer, inner} : Triple{g, inner, outer};
  }
  /// Whether a triple's key tile is the last its query tile visits (its output rows are then stored).
  bool last_key_tile(const Triple& x) const { return x.ki + 1 == key_tiles_visited(s_, tq_full_, tk_full_, x.qi); }
  /// The inner tiles [begin, end) of outer tile o that differ one from another (none unless causal): for a query
  /// tile, the key tiles past those its first row attends to whole (some pair masked); for a key tile, the query
  /// tiles before the first whose first row attends to all its keys and the key after them.
  std::pair<std::uint64_t, std::uint64_t> diagonal(std::uint64_t o) const {
    if (!s_.causal) return {inner_end(o), inner_end(o)};
    // row r (position r / heads) attends to the keys < shift + r / heads + 1
    const std::uint64_t shift = s_.keys - s_.queries, h = s_.heads;
    if (order_ == FusedOrder::queries_outer) {
      const std::uint64_t whole = (shift + o * tq_full_ / h + 1) / tk_full_;
      return {std::min(whole, inner_end(o)), inner_end(o)};
    }
    // the query tiles from the first whose first row also attends the key after the tile: they attend it whole and
    // go on to later key tiles (storing partial rows); a tile before them may end at this key tile though it
    // attends it whole (several rows a position)
    const std::uint64_t key_end = std::min(s_.keys, (o + 1) * tk_full_);
    const std::uint64_t whole = ceil_div((key_end > shift ? key_end - shift : 0) * h, tq_full_);
    return {inner_begin(o), std::clamp(whole, inner_begin(o), inner_end(o))};
  }
  /// The outer tiles [o0, o1) alike within: causal, each alone; otherwise split at the first and last outer
  /// tiles and where the softmax's extra cycle ends (outer tile o_rem).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> outer_intervals(std::uint64_t o_rem) const {
    if (!s_.causal) return intervals(0, outer_trips_, around({1, outer_trips_ - 1, o_rem, o_rem + 1}));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> each;
    for (std::uint64_t o = 0; o < outer_trips_; ++o) each.emplace_back(o, o + 1);
    return each;
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
  std::uint64_t tq_full_, tk_full_, q_trips_, k_trips_, outer_trips_, inner_trips_, per_group_ = 0, triples_ = 0;
  std::vector<std::uint64_t> row_start_;  // causal: per group, the triples before each outer tile (outer + 1)
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
