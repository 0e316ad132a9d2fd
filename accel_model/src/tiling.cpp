// GEMM tiling search (loop orders × power-of-two tiles) scored by the tile pipeline, and the tile sequence of a
// tiling (random access by loop indices, walked by a cursor).
#include "ecosim/accel_model/tiling.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <utility>

#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "fastest_candidate.hpp"
#include "loop_nest.hpp"
#include "memory_walk.hpp"
#include "pipeline_memo.hpp"

namespace ecosim::accel {

namespace {

constexpr std::array<std::array<char, 3>, 6> kOrders = {
    {{'m', 'n', 'k'}, {'m', 'k', 'n'}, {'n', 'm', 'k'}, {'n', 'k', 'm'}, {'k', 'm', 'n'}, {'k', 'n', 'm'}}};

struct Loops {
  std::uint64_t trips[3];  // m, n, k
  std::uint64_t tile[3];
  std::uint64_t last[3];  // size of the last (edge) tile
  static std::size_t index(char loop) { return loop == 'm' ? 0 : loop == 'n' ? 1 : 2; }
  std::uint64_t size(std::size_t dim, std::uint64_t i) const { return i + 1 == trips[dim] ? last[dim] : tile[dim]; }
};

/// Sets loop `d` of `l` to tiles of `tile` along a dimension of `dim`.
void set_loop(Loops& l, std::size_t d, std::uint64_t dim, std::uint64_t tile) {
  l.tile[d] = tile;
  l.trips[d] = ceil_div(dim, tile);
  l.last[d] = dim - (l.trips[d] - 1) * tile;
}
Loops make_loops(const GemmShape& s, std::uint64_t tm, std::uint64_t tn, std::uint64_t tk) {
  Loops l{};
  set_loop(l, 0, s.m, tm);
  set_loop(l, 1, s.n, tn);
  set_loop(l, 2, s.k, tk);
  return l;
}

/// How many times a tensor depending on the dimensions in `deps` (bit d: dimension d of m, n, k) is swept: the
/// product of the trips of the loops it does not depend on that sit outside its innermost changing dependency
/// (they force it to be re-fetched).
std::uint64_t sweeps(const Loops& l, std::array<char, 3> order, unsigned deps) {
  auto depends = [&](char loop) { return (deps >> Loops::index(loop)) & 1u; };
  int innermost = -1;
  for (int p = 0; p < 3; ++p)
    if (depends(order[p]) && l.trips[Loops::index(order[p])] > 1) innermost = p;
  std::uint64_t factor = 1;
  for (int p = 0; p < innermost; ++p)
    if (!depends(order[p])) factor *= l.trips[Loops::index(order[p])];
  return factor;
}
constexpr unsigned kA = 0b101, kB = 0b110, kC = 0b011;  // dimensions of A (m, k), B (n, k), C (m, n)
// A GEMM's tensors (GemmRun::tensors), as the tiles' boxes index them.
enum GemmTensor : std::uint8_t { kTensorA, kTensorB, kTensorPartial, kTensorC };

/// Whether each of kOrders is the first listed of the loop orders walking its tile sequence (loops of one trip
/// can sit anywhere): the others would tie with it in everything and lose to it.
std::array<bool, kOrders.size()> first_of_their_nests(const Loops& l) {
  std::array<unsigned, kOrders.size()> walked{};  // the loops of more than one trip, outermost first, as digits
  for (std::size_t o = 0; o < kOrders.size(); ++o)
    for (char loop : kOrders[o])
      if (l.trips[Loops::index(loop)] > 1) walked[o] = walked[o] * 4 + unsigned(Loops::index(loop)) + 1;
  std::array<bool, kOrders.size()> first{};
  for (std::size_t o = 0; o < kOrders.size(); ++o)
    first[o] =
        std::find(walked.begin(), walked.begin() + std::ptrdiff_t(o), walked[o]) == walked.begin() + std::ptrdiff_t(o);
  return first;
}

}  // namespace

std::vector<std::uint64_t> tile_sizes(std::uint64_t dim, std::uint64_t unit) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t first : {std::uint64_t{1}, std::max<std::uint64_t>(unit, 1)})
    for (std::uint64_t t = first;; t *= 2) {
      sizes.push_back(std::min(t, dim));
      if (t >= dim) break;
    }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

Fusion fusion(unsigned a_bits, unsigned w_bits, const AccelConfig& c) {
  const std::uint64_t side = c.pmax_bits / c.pmin_bits, bricks = side * side;
  const auto pieces = [&](unsigned bits) { return ceil_div(std::max<std::uint64_t>(bits, 1), c.pmin_bits); };
  const std::uint64_t needed = pieces(a_bits) * pieces(w_bits);
  if (needed <= bricks) return {bricks / needed, 1};
  return {1, ceil_div(needed, bricks)};
}

std::uint64_t tile_cycles(std::uint64_t tm, std::uint64_t tn, std::uint64_t tk, Fusion f, const AccelConfig& c) {
  return checked_mul(checked_mul(tm, ceil_div(tn, c.cols)), ceil_div(tk * f.passes, c.rows * f.spatial));
}

TileWork array_tile(std::uint64_t tm, std::uint64_t tn, std::uint64_t tk, unsigned a_bits, unsigned w_bits,
                    const AccelConfig& c) {
  const Fusion f = fusion(a_bits, w_bits, c);
  const std::uint64_t acc = c.accumulator_bits, k_steps = ceil_div(tk * f.passes, c.rows * f.spatial);
  TileWork t;
  t.unit = Unit::array;
  t.compute_cycles = tile_cycles(tm, tn, tk, f, c);
  t.macs = tm * tn * tk;
  t.unit_read_bits[std::size_t(Buffer::weights)] = tk * tn * w_bits;
  t.unit_read_bits[std::size_t(Buffer::inputs)] = tm * tk * a_bits * ceil_div(tn, c.cols);
  t.unit_read_bits[std::size_t(Buffer::outputs)] = tm * tn * acc * k_steps;
  t.unit_write_bits[std::size_t(Buffer::outputs)] = tm * tn * acc * k_steps;
  return t;
}

std::string GemmTiling::describe() const {
  return fmt::format("tile {}x{}x{} (m×n×k) order {}{}{}", tm, tn, tk, order[0], order[1], order[2]);
}

namespace {

/// The loop nest of a tiling: loops m, n, k (positions 0–2 of an index) in the tiling's order inside the batch
/// loop (position 3), its tiles by loop indices. A tile's loads follow from the tile before it (the operand
/// tiles the buffers hold) and its store from the tile after it (which evicts its output tile), so tile i is a
/// function of the indices of tiles i−1, i and i+1.
class GemmNest {
 public:
  static constexpr std::size_t kBatch = 3;
  using Index = LoopNest<4>::Index;

  GemmNest(const GemmShape& s, const GemmTiling& g, const AccelConfig& c)
      : GemmNest(s, make_loops(s, g.tm, g.tn, g.tk), g.order, c) {}
  GemmNest(const GemmShape& s, const Loops& l, std::array<char, 3> order, const AccelConfig& c)
      : s_(s),
        c_(c),
        l_(l),
        nest_({l.trips[0], l.trips[1], l.trips[2], s.batch},
              {kBatch, Loops::index(order[0]), Loops::index(order[1]), Loops::index(order[2])}) {}

  const LoopNest<4>& nest() const { return nest_; }

  /// The tile at `at`, `before` and `after` being the tiles around it (null at the op's start and end).
  TileWork tile(const Index* before, const Index& at, const Index* after) const {
    return with_transfers(array_tile(l_.size(0, at[0]), l_.size(1, at[1]), l_.size(2, at[2]), s_.a_bits, s_.w_bits, c_),
                          before, at, after);
  }
  /// Where the tile at `at` loads and stores (`t`): A (m, k), B (k, n), partial sums or C (m, n) tiles.
  TileBoxes boxes(const Index& at, const TileWork& t) const {
    auto box = [&](std::uint8_t tensor, std::size_t rows, std::size_t cols) {
      return TensorBox{tensor,
                       {at[kBatch], 0, at[rows] * l_.tile[rows], at[cols] * l_.tile[cols]},
                       {1, 1, l_.size(rows, at[rows]), l_.size(cols, at[cols])}};
    };
    TileBoxes b;
    if (t.load_bits[std::size_t(Buffer::inputs)]) b.load[std::size_t(Buffer::inputs)] = box(kTensorA, 0, 2);
    if (t.load_bits[std::size_t(Buffer::weights)]) b.load[std::size_t(Buffer::weights)] = box(kTensorB, 2, 1);
    if (t.load_bits[std::size_t(Buffer::outputs)]) b.load[std::size_t(Buffer::outputs)] = box(kTensorPartial, 0, 1);
    if (t.store_bits) b.store = box(final_sums(at) ? kTensorC : kTensorPartial, 0, 1);
    return b;
  }
  /// The parts of tile(): the bits loaded into each buffer, the operand tiles the tile before did not use (A
  /// into inputs, B into weights) and the partial sums of an output tile it did not hold ...
  std::array<std::uint64_t, kBufferCount> load_bits(const Index* before, const Index& at) const {
    const std::uint64_t tm = l_.size(0, at[0]), tn = l_.size(1, at[1]), tk = l_.size(2, at[2]);
    std::array<std::uint64_t, kBufferCount> bits{};
    if (other_tile(before, at, 0, 2)) bits[std::size_t(Buffer::inputs)] = tm * tk * s_.a_bits;   // A (m, k)
    if (other_tile(before, at, 1, 2)) bits[std::size_t(Buffer::weights)] = tk * tn * s_.w_bits;  // B (k, n)
    if (other_tile(before, at, 0, 1) && (at[2] != 0 || s_.continues))
      bits[std::size_t(Buffer::outputs)] = tm * tn * c_.accumulator_bits;  // C (m, n)
    return bits;
  }
  /// ... and the bits stored: the output tile when the tile after evicts it, final after the last k step.
  std::uint64_t store_bits(const Index& at, const Index* after) const {
    if (!other_tile(after, at, 0, 1)) return 0;
    const unsigned bits = final_sums(at) ? s_.out_bits() : unsigned(c_.accumulator_bits);
    return l_.size(0, at[0]) * l_.size(1, at[1]) * bits;
  }

  /// True when the tile at `at` completes its outputs' sums (the last k tile of a GEMM that does not go on).
  bool final_sums(const Index& at) const { return at[2] + 1 == l_.trips[2] && !s_.goes_on; }
  /// tile() as a callable for LoopNest and NestCursor (valid while this nest lives).
  auto tiler() const {
    return [this](const Index* before, const Index& at, const Index* after) { return tile(before, at, after); };
  }
  /// By loop (m, n, k, batch), the last indices its tiles set apart: along m, n and k the last and
  /// next-to-last (edge tiles, carries, the edge tile after), along the batch the last.
  static constexpr std::array<std::uint64_t, 4> kLastEdges = {2, 2, 2, 1};
  /// By loop, the indices whose tiles stand for one another (NestCursor).
  std::array<IndexRange, 4> middles() const {
    std::array<IndexRange, 4> m;
    for (std::size_t l = 0; l < 4; ++l) m[l] = middle_indices(nest_.trips(l), kLastEdges[l]);
    return m;
  }
  /// The tiles by class: along each loop the first index, the middle ones and each of the last kLastEdges.
  /// The array's part of a tile depends on its indices only through which are last (edge tiles): the eight
  /// such parts are made once.
  void visit_classes(const TileClassVisitor& visit) const {
    std::array<IndexClasses, 4> classes;
    for (std::size_t l = 0; l < 4; ++l) classes[l] = edge_classes(nest_.trips(l), kLastEdges[l]);
    std::array<TileWork, 8> array_tiles;  // by edge_key
    for (std::size_t key = 0; key < array_tiles.size(); ++key) {
      auto size = [&](std::size_t d) { return (key >> d) & 1u ? l_.last[d] : l_.tile[d]; };
      array_tiles[key] = array_tile(size(0), size(1), size(2), s_.a_bits, s_.w_bits, c_);
    }
    nest_.visit_classes(
        classes,
        [&](const Index* before, const Index& at, const Index* after) {
          return with_transfers(array_tiles[edge_key(at)], before, at, after);
        },
        visit);
  }

 private:
  const GemmShape s_;
  const AccelConfig& c_;
  const Loops l_;
  const LoopNest<4> nest_;

  /// `t`, the array's part of the tile at `at`, with its loads and store.
  TileWork with_transfers(TileWork t, const Index* before, const Index& at, const Index* after) const {
    t.load_bits = load_bits(before, at);
    t.store_bits = store_bits(at, after);
    return t;
  }
  /// Bit d set when the index along dimension d (m, n, k) is the last: its tile is the edge tile (l_.size).
  std::size_t edge_key(const Index& at) const {
    std::size_t key = 0;
    for (std::size_t d = 0; d < 3; ++d) key |= std::size_t(at[d] + 1 == l_.trips[d]) << d;
    return key;
  }
  /// Whether `other` (null: none) uses another tile than `at` of the operand indexed by dimensions d1, d2.
  static bool other_tile(const Index* other, const Index& at, std::size_t d1, std::size_t d2) {
    return !other || (*other)[kBatch] != at[kBatch] || (*other)[d1] != at[d1] || (*other)[d2] != at[d2];
  }
};

/// The pipeline's fill and drain (loop_nest.hpp), the same in every loop order: the first and last tiles are.
std::uint64_t fill_and_drain_cycles(const GemmShape& s, const Loops& l, const AccelConfig& c) {
  return fill_and_drain_cycles(GemmNest(s, l, kOrders[0], c), c);
}

/// What a tiling moves over the whole op, in closed form: DRAM bits of A, B, partial sums (each way) and final
/// outputs.
struct Traffic {
  std::uint64_t a = 0, w = 0, partial = 0, out = 0;
};
/// The array's column blocks summed over the tiles of one row, and its k-steps.
std::uint64_t col_steps(const Loops& l, const AccelConfig& c) {
  return (l.trips[1] - 1) * ceil_div(l.tile[1], c.cols) + ceil_div(l.last[1], c.cols);
}
std::uint64_t k_steps(const GemmShape& s, const Loops& l, const AccelConfig& c) {
  const Fusion f = fusion(s.a_bits, s.w_bits, c);
  const std::uint64_t kdiv = c.rows * f.spatial;
  return (l.trips[2] - 1) * ceil_div(l.tile[2] * f.passes, kdiv) + ceil_div(l.last[2] * f.passes, kdiv);
}
/// Array cycles summed over a tiling's tiles (the same in every loop order), from its column blocks and k-steps.
std::uint64_t compute_cycles(const GemmShape& s, std::uint64_t col_steps, std::uint64_t k_steps) {
  return checked_mul(s.batch, checked_mul(s.m, checked_mul(col_steps, k_steps)));
}
Traffic traffic(const GemmShape& s, const Loops& l, std::array<char, 3> order, const AccelConfig& c) {
  Traffic x;
  x.a = checked_mul(s.batch * s.m * s.k * s.a_bits, sweeps(l, order, kA));
  x.w = checked_mul(s.batch * s.k * s.n * s.w_bits, sweeps(l, order, kB));
  x.partial = checked_mul(s.batch * s.m * s.n * c.accumulator_bits, sweeps(l, order, kC) - 1);
  x.out = s.batch * s.m * s.n * s.out_bits();
  return x;
}

/// Tile sizes that fit, with their compute cycles (no loop order changes them).
struct Sizes {
  Loops loops;
  std::uint64_t compute_cycles;
};

/// A tiling's DRAM bits and bound on its pipeline cycles (not the pipeline cycles themselves, nor the energy).
GemmTiling evaluate_bound(const GemmShape& s, const Sizes& z, std::array<char, 3> order, const AccelConfig& c,
                          std::uint64_t fill_and_drain) {
  const Loops& l = z.loops;
  GemmTiling t;
  t.tm = l.tile[0], t.tn = l.tile[1], t.tk = l.tile[2], t.order = order;
  const Traffic x = traffic(s, l, order, c);
  t.compute_cycles = z.compute_cycles;
  t.dram_bits = checked_add(checked_add(x.a, x.w), checked_add(2 * x.partial, x.out));
  // Every tile computes between the fill and the drain; every bit crosses the one DMA channel.
  t.bound_cycles = std::max(checked_add(t.compute_cycles, fill_and_drain), dram_peak_cycles(t.dram_bits, c));
  return t;
}

/// What a tiling's energy counts, besides its compute cycles and DRAM bits: its traffic, the trips of its m loop
/// and the array's column blocks and k-steps.
struct EnergyCounts {
  Traffic x;
  std::uint64_t trips_m = 0, col_steps = 0, k_steps = 0;
};
EnergyCounts energy_counts(const GemmShape& s, const Loops& l, std::array<char, 3> order, const AccelConfig& c) {
  return {traffic(s, l, order, c), l.trips[0], col_steps(l, c), k_steps(s, l, c)};
}

/// The energy of a tiling's tile sequence (array, DRAM, SRAM), in closed form.
double tiling_energy_pj(const GemmShape& s, const GemmTiling& t, const EnergyCounts& n, const AccelConfig& c) {
  const Traffic& x = n.x;
  const auto& wb = c.buffer(Buffer::weights);
  const auto& ib = c.buffer(Buffer::inputs);
  const auto& ob = c.buffer(Buffer::outputs);
  const double unit_weight_reads = double(s.batch) * double(n.trips_m) * double(s.n * s.k * s.w_bits);
  const double unit_input_reads = double(s.batch) * double(s.m * s.k * s.a_bits) * double(n.col_steps);
  const double unit_output_rw = double(s.batch) * double(s.m * s.n * c.accumulator_bits) * double(n.k_steps);
  return double(t.compute_cycles) * c.array_pj_per_cycle + double(t.dram_bits) * c.dram_pj_per_bit +
         double(x.w) * wb.write_pj_per_bit + unit_weight_reads * wb.read_pj_per_bit +
         double(x.a) * ib.write_pj_per_bit + unit_input_reads * ib.read_pj_per_bit +
         double(x.partial) * ob.write_pj_per_bit + double(x.partial + x.out) * ob.read_pj_per_bit +
         unit_output_rw * (ob.read_pj_per_bit + ob.write_pj_per_bit);
}
double tiling_energy_pj(const GemmShape& s, const GemmTiling& t, const AccelConfig& c) {
  return tiling_energy_pj(s, t, energy_counts(s, make_loops(s, t.tm, t.tn, t.tk), t.order, c), c);
}

}  // namespace

std::uint64_t tie_window_cycles(std::uint64_t fastest_cycles) {
  return fastest_cycles + std::min(fastest_cycles / kCycleTieDivisor, ~std::uint64_t{0} - fastest_cycles);
}

std::uint64_t pipeline_cycles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config) {
  return cycles_by_class(GemmNest(shape, tiling, config), config);
}

GemmTiling evaluate_tiling(const GemmShape& s, std::uint64_t tm, std::uint64_t tn, std::uint64_t tk,
                           std::array<char, 3> order, const AccelConfig& c) {
  const Loops l = make_loops(s, tm, tn, tk);
  GemmTiling t = evaluate_bound(s, {l, compute_cycles(s, col_steps(l, c), k_steps(s, l, c))}, order, c,
                                fill_and_drain_cycles(s, l, c));
  t.pipeline_cycles = pipeline_cycles(s, t, c);
  t.energy_pj = tiling_energy_pj(s, t, c);
  return t;
}

namespace {

/// The tile sizes of one GEMM under one timing (timing_key), by their indices along k, n and m, each evaluated
/// when first needed: its loops and compute cycles, then its fill and drain, then the bounds of its loop orders
/// (every one first of its nest). None of these depends on the buffers, which only decide which sizes fit, so
/// points of a sweep timed alike share a grid.
class SizeGrid {
 public:
  /// `items` (which must outlive the grid) counts the sizes and bounds it holds, as they are added.
  SizeGrid(const GemmShape& s, const AccelConfig& c, std::size_t& items)
      : s_(s),
        k_(tile_sizes(s.k, k_unit(s, c))),
        n_(tile_sizes(s.n, c.cols)),
        m_(tile_sizes(s.m)),
        entries_(k_.size() * n_.size() * m_.size()),
        items_(items) {
    items_ += entries_.size();
  }
  static std::size_t entry_count(const GemmShape& s, const AccelConfig& c) {
    return tile_sizes(s.k, k_unit(s, c)).size() * tile_sizes(s.n, c.cols).size() * tile_sizes(s.m).size();
  }
  /// The reduction the array's rows take a cycle at the shape's precisions.
  static std::uint64_t k_unit(const GemmShape& s, const AccelConfig& c) {
    return c.rows * fusion(s.a_bits, s.w_bits, c).spatial;
  }
  const std::vector<std::uint64_t>& sizes_k() const { return k_; }
  const std::vector<std::uint64_t>& sizes_n() const { return n_; }
  const std::vector<std::uint64_t>& sizes_m() const { return m_; }
  std::size_t id(std::size_t ik, std::size_t in, std::size_t im) const {
    return (ik * n_.size() + in) * m_.size() + im;
  }

  const Sizes& sizes(std::size_t id, const AccelConfig& c) {
    Entry& e = entries_[id];
    if (e.evaluated < kSizes) {
      Loops l{};
      set_loop(l, 0, s_.m, m_[id % m_.size()]);
      set_loop(l, 1, s_.n, n_[id / m_.size() % n_.size()]);
      set_loop(l, 2, s_.k, k_[id / m_.size() / n_.size()]);
      e.z = {l, compute_cycles(s_, col_steps(l, c), k_steps(s_, l, c))};
      e.evaluated = kSizes;
    }
    return e.z;
  }
  std::uint64_t fill_and_drain(std::size_t id, const AccelConfig& c) {
    Entry& e = entries_[id];
    if (e.evaluated < kFillAndDrain) {
      e.fill_and_drain = fill_and_drain_cycles(s_, sizes(id, c).loops, c);
      e.evaluated = kFillAndDrain;
    }
    return e.fill_and_drain;
  }
  /// Appends the indices (bound()) of the bounds of the size's loop orders to `into`.
  void append_bounds(std::size_t id, const AccelConfig& c, std::vector<std::size_t>& into) {
    Entry& e = entries_[id];
    if (e.evaluated < kBounds) {
      const std::uint64_t fd = fill_and_drain(id, c);
      const Sizes& z = e.z;
      const auto first = first_of_their_nests(z.loops);
      std::vector<Bound> bounds;
      for (std::size_t o = 0; o < kOrders.size(); ++o)
        if (first[o])
          bounds.push_back({evaluate_bound(s_, z, kOrders[o], c, fd), energy_counts(s_, z.loops, kOrders[o], c)});
      e.first_bound = bounds_.size();
      e.bound_count = bounds.size();
      bounds_.insert(bounds_.end(), bounds.begin(), bounds.end());
      items_ += bounds.size();
      e.evaluated = kBounds;
    }
    for (std::size_t b = e.first_bound; b < e.first_bound + e.bound_count; ++b) into.push_back(b);
  }
  /// A tiling's bound (GemmTiling without pipeline cycles and energy) and what its energy counts.
  struct Bound {
    GemmTiling tiling;
    EnergyCounts counts;
  };
  const Bound& bound(std::size_t b) const { return bounds_[b]; }

 private:
  enum : std::uint8_t { kNothing, kSizes, kFillAndDrain, kBounds };
  struct Entry {
    Sizes z{};
    std::uint64_t fill_and_drain = 0;
    std::size_t first_bound = 0, bound_count = 0;  // in bounds_
    std::uint8_t evaluated = kNothing;
  };
  const GemmShape s_;
  const std::vector<std::uint64_t> k_, n_, m_;
  std::vector<Entry> entries_;
  std::vector<Bound> bounds_;
  std::size_t& items_;
};

/// The calling thread's grids are emptied once they hold more than kGridMemoItems sizes and bounds in all (a
/// few MB): checked when a grid is asked for, so at most one GEMM's grid more.
constexpr std::size_t kGridMemoItems = std::size_t{1} << 17;
/// The grid of `s` under `c`: remembered for its timing, or (a memory model's timing, or a grid too large to
/// keep) made in `own`, counting its items in `own_items`.
SizeGrid& grid_for(const GemmShape& s, const AccelConfig& c, std::unique_ptr<SizeGrid>& own, std::size_t& own_items) {
  const std::optional<GemmTimingKey> key = timing_key(s, c);
  if (!key || SizeGrid::entry_count(s, c) > kGridMemoItems / 8)
    return *(own = std::make_unique<SizeGrid>(s, c, own_items));
  struct Memo {
    std::unordered_map<GemmTimingKey, std::unique_ptr<SizeGrid>, GemmTimingKeyHash> grids;
    std::size_t items = 0;  // counted by the grids
  };
  thread_local Memo memo;
  if (memo.items > kGridMemoItems) {
    memo.grids.clear();
    memo.items = 0;
  }
  if (const auto found = memo.grids.find(*key); found != memo.grids.end()) return *found->second;
  return *memo.grids.emplace(*key, std::make_unique<SizeGrid>(s, c, memo.items)).first->second;
}

}  // namespace

GemmTiling choose_tiling(const GemmShape& s, const AccelConfig& c) {
  const std::uint64_t half_in = c.buffer(Buffer::inputs).half_bits(), half_w = c.buffer(Buffer::weights).half_bits(),
                      half_out = c.buffer(Buffer::outputs).half_bits();
  std::unique_ptr<SizeGrid> own;
  std::size_t own_items = 0;
  SizeGrid& grid = grid_for(s, c, own, own_items);
  std::vector<std::size_t> fitting;  // the sizes that fit, in the order of enumeration
  for (std::size_t ik = 0; ik < grid.sizes_k().size(); ++ik) {
    const std::uint64_t tk = grid.sizes_k()[ik];
    for (std::size_t in = 0; in < grid.sizes_n().size(); ++in) {
      const std::uint64_t tn = grid.sizes_n()[in];
      if (tk * tn * s.w_bits > half_w) break;
      for (std::size_t im = 0; im < grid.sizes_m().size(); ++im) {
        const std::uint64_t tm = grid.sizes_m()[im];
        if (tm * tk * s.a_bits > half_in || tm * tn * c.accumulator_bits > half_out) break;
        fitting.push_back(grid.id(ik, in, im));
      }
    }
  }
  if (fitting.empty())
    throw Error(fmt::format("no GEMM tile of {}-bit operands fits the buffers of '{}'", s.a_bits, c.name));
  // A probe: the tile sizes of the fewest compute cycles in their best loop order. Every candidate that ties
  // with the fastest takes at most the probe's tie window, so sizes whose compute, fill and drain (the part of
  // the bound no loop order changes) are past it are left out (this only saves evaluating them: the choice is
  // the same). Under a stateful memory model every size stays: walked, one past the window may be the fastest.
  std::uint64_t limit = ~std::uint64_t{0};
  if (!c.memory_bound) {
    std::size_t fewest = fitting.front();
    for (std::size_t id : fitting)
      if (grid.sizes(id, c).compute_cycles < grid.sizes(fewest, c).compute_cycles) fewest = id;
    std::vector<std::size_t> probes;
    grid.append_bounds(fewest, c, probes);
    const std::size_t probe = *std::min_element(probes.begin(), probes.end(), [&](std::size_t a, std::size_t b) {
      return grid.bound(a).tiling.bound_cycles < grid.bound(b).tiling.bound_cycles;
    });
    limit = tie_window_cycles(remembered_pipeline_cycles(s, grid.bound(probe).tiling, c));
  }
  std::vector<std::size_t> candidates;  // bounds, in the order of enumeration
  for (std::size_t id : fitting) {
    const std::uint64_t compute = grid.sizes(id, c).compute_cycles;
    if (compute > limit) continue;
    if (checked_add(compute, grid.fill_and_drain(id, c)) <= limit) grid.append_bounds(id, c, candidates);
  }
  auto tiling = [&](std::size_t i) -> const GemmTiling& { return grid.bound(candidates[i]).tiling; };
  std::vector<std::optional<std::uint64_t>> pipeline(candidates.size());  // of those scored
  std::vector<std::optional<double>> energy_pj(candidates.size());        // of those that can tie
  auto score = [&](std::size_t i) {
    if (!pipeline[i]) pipeline[i] = remembered_pipeline_cycles(s, tiling(i), c);
    return *pipeline[i];
  };
  auto energy = [&](std::size_t i) {
    if (!energy_pj[i]) energy_pj[i] = tiling_energy_pj(s, tiling(i), grid.bound(candidates[i]).counts, c);
    return *energy_pj[i];
  };
  auto better = [&](std::size_t a, std::size_t b) {
    const GemmTiling &x = tiling(a), &y = tiling(b);
    return better_tie(*energy_pj[a], x.tm * x.tn * x.tk, a, *energy_pj[b], y.tm * y.tn * y.tk, b);
  };
  auto bound = [&](std::size_t i) { return tiling(i).bound_cycles; };
  std::size_t best = fastest_candidate(candidates.size(), bound, score, energy, better);
  if (c.memory_bound) {
    auto run = [&](std::size_t i) { return gemm_tiles(s, tiling(i), c); };
    best = fastest_walked_candidate(
        candidates.size(), best, bound, score, [&](std::size_t i) { return tiling(i).dram_bits; },
        [&](std::size_t i) { return memory_walked_estimate(run(i), c, tiling(i).dram_bits, tiling(i).bound_cycles); },
        [&](std::size_t i) { return memory_walked_cycles(run(i), c); }, energy, better, kMemoryWalkBits);
  }
  GemmTiling chosen = tiling(best);
  chosen.pipeline_cycles = score(best);
  chosen.energy_pj = energy(best);
  return chosen;
}

namespace {

class GemmRun : public TileRun {
 public:
  GemmRun(const GemmShape& s, const GemmTiling& g, const AccelConfig& c) : shape_(s), tiling_(g), config_(c) {}
  std::uint64_t tile_count() const override { return nest_.nest().tile_count(); }
  std::unique_ptr<TileCursor> cursor() const override {
    return std::make_unique<NestCursor<4, decltype(nest_.tiler())>>(*this, nest_.nest(), nest_.tiler(),
                                                                    nest_.middles());
  }
  TileBoxes boxes(const TileWork& t) const override {
    return nest_.boxes({t.index[0], t.index[1], t.index[2], t.index[3]}, t);
  }
  std::vector<TensorShape> tensors() const override {  // by GemmTensor
    const GemmShape& s = shape_;
    return {{{s.batch, 1, s.m, s.k}, s.a_bits},
            {{s.batch, 1, s.k, s.n}, s.w_bits},
            {{s.batch, 1, s.m, s.n}, unsigned(config_.accumulator_bits)},
            {{s.batch, 1, s.m, s.n}, s.out_bits()}};
  }
  void visit_classes(const TileClassVisitor& visit) const override { nest_.visit_classes(visit); }

 private:
  GemmShape shape_;
  GemmTiling tiling_;
  AccelConfig config_;
  GemmNest nest_{shape_, tiling_, config_};
};

}  // namespace

GemmTiling TilingMemo::choose(const GemmShape& shape) {
  return gemm_.get(shape, [&] { return choose_tiling(shape, config_); });
}

ConvTiling TilingMemo::choose_conv(const ConvShape& shape, unsigned a_bits, unsigned w_bits) {
  return conv_.get({shape, a_bits, w_bits}, [&] { return choose_conv_tiling(shape, a_bits, w_bits, config_); });
}

GemmTiling TilingMemo::choose_strips(const GemmShape& shape, bool keys_along_n, std::uint64_t window,
                                     const std::function<GemmTiling()>& make) {
  return strips_.get({shape, keys_along_n, window}, make);
}

std::shared_ptr<const TileRun> gemm_tiles(const GemmShape& s, const GemmTiling& g, const AccelConfig& c) {
  return std::make_shared<GemmRun>(s, g, c);
}

}  // namespace ecosim::accel
