// GEMM tiling search (loop orders × power-of-two tiles) scored by the tile pipeline, and the tile sequence of a
// tiling (random access by loop indices, walked by a cursor).
#include "ecosim/accel_model/tiling.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>

#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::accel {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

constexpr std::array<std::array<char, 3>, 6> kOrders = {
    {{'m', 'n', 'k'}, {'m', 'k', 'n'}, {'n', 'm', 'k'}, {'n', 'k', 'm'}, {'k', 'm', 'n'}, {'k', 'n', 'm'}}};

struct Loops {
  std::uint64_t trips[3];  // m, n, k
  std::uint64_t tile[3];
  std::uint64_t last[3];  // size of the last (edge) tile
  static std::size_t index(char loop) { return loop == 'm' ? 0 : loop == 'n' ? 1 : 2; }
  std::uint64_t size(std::size_t dim, std::uint64_t i) const { return i + 1 == trips[dim] ? last[dim] : tile[dim]; }
};

Loops make_loops(const GemmShape& s, std::uint64_t tm, std::uint64_t tn, std::uint64_t tk) {
  Loops l{};
  const std::uint64_t dims[3] = {s.m, s.n, s.k}, tiles[3] = {tm, tn, tk};
  for (std::size_t d = 0; d < 3; ++d) {
    l.tile[d] = tiles[d];
    l.trips[d] = ceil_div(dims[d], tiles[d]);
    l.last[d] = dims[d] - (l.trips[d] - 1) * tiles[d];
  }
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

/// Whether kOrders[o] is the first listed of the loop orders walking its tile sequence (loops of one trip can
/// sit anywhere): the others would tie with it in everything and lose to it.
bool first_of_its_nest(std::size_t o, const Loops& l) {
  auto walked = [&](const std::array<char, 3>& order) {  // the loops of more than one trip, outermost first
    std::array<char, 3> loops{};
    std::size_t n = 0;
    for (char loop : order)
      if (l.trips[Loops::index(loop)] > 1) loops[n++] = loop;
    return loops;
  };
  const std::array<char, 3> mine = walked(kOrders[o]);
  for (std::size_t p = 0; p < o; ++p)
    if (walked(kOrders[p]) == mine) return false;
  return true;
}

}  // namespace

std::vector<std::uint64_t> tile_sizes(std::uint64_t dim) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t t = 1;; t *= 2) {
    sizes.push_back(std::min(t, dim));
    if (t >= dim) break;
  }
  return sizes;
}

Fusion fusion(unsigned a_bits, unsigned w_bits) {
  auto spatial = [](unsigned bits) -> std::uint64_t { return bits >= 8 ? 1 : 8 / std::max(bits, 2u); };
  auto passes = [](unsigned bits) -> std::uint64_t { return bits <= 8 ? 1 : ceil_div(bits, 8); };
  return {spatial(a_bits) * spatial(w_bits), passes(a_bits) * passes(w_bits)};
}

std::uint64_t tile_cycles(std::uint64_t tm, std::uint64_t tn, std::uint64_t tk, Fusion f, const AccelConfig& c) {
  return checked_mul(checked_mul(tm, ceil_div(tn, c.cols)), ceil_div(tk * f.passes, c.rows * f.spatial));
}

TileWork array_tile(std::uint64_t tm, std::uint64_t tn, std::uint64_t tk, unsigned a_bits, unsigned w_bits,
                    const AccelConfig& c) {
  const Fusion f = fusion(a_bits, w_bits);
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

/// Loop indices of one tile: the batch element and the tile's index along m, n and k.
struct NestIndex {
  std::uint64_t batch = 0;
  std::array<std::uint64_t, 3> idx{};  // by dimension m, n, k
};

/// The loop nest of a tiling (batch outermost, then the tiling's order), its tiles by loop indices. A tile's
/// loads follow from the tile before it (the operand tiles the buffers hold) and its store from the tile
/// after it (which evicts its output tile), so tile i is a function of the indices of tiles i−1, i and i+1.
class GemmNest {
 public:
  GemmNest(const GemmShape& s, const GemmTiling& g, const AccelConfig& c)
      : GemmNest(s, make_loops(s, g.tm, g.tn, g.tk), g.order, c) {}
  GemmNest(const GemmShape& s, const Loops& l, std::array<char, 3> order, const AccelConfig& c)
      : s_(s),
        c_(c),
        l_(l),
        f_(fusion(s.a_bits, s.w_bits)),
        order_{Loops::index(order[0]), Loops::index(order[1]), Loops::index(order[2])} {}

  const Loops& loops() const { return l_; }
  NestIndex last() const { return {s_.batch - 1, {l_.trips[0] - 1, l_.trips[1] - 1, l_.trips[2] - 1}}; }

  /// Moves to the next tile (innermost loop first, carrying outwards); false past the last.
  bool step(NestIndex& at) const {
    for (int p = 2; p >= 0; --p) {
      const std::size_t d = order_[p];
      if (++at.idx[d] < l_.trips[d]) return true;
      at.idx[d] = 0;
    }
    return ++at.batch < s_.batch;
  }
  /// Moves to the tile before; false before the first.
  bool step_back(NestIndex& at) const {
    for (int p = 2; p >= 0; --p) {
      const std::size_t d = order_[p];
      if (at.idx[d] > 0) {
        --at.idx[d];
        return true;
      }
      at.idx[d] = l_.trips[d] - 1;
    }
    if (at.batch == 0) return false;
    --at.batch;
    return true;
  }

  /// The tile at `at`, `before` and `after` being the tiles around it (null at the op's start and end).
  TileWork tile(const NestIndex* before, const NestIndex& at, const NestIndex* after) const {
    TileWork t =
        array_tile(l_.size(0, at.idx[0]), l_.size(1, at.idx[1]), l_.size(2, at.idx[2]), s_.a_bits, s_.w_bits, c_);
    t.load_bits = load_bits(before, at);
    t.store_bits = store_bits(at, after);
    return t;
  }
  /// Where the tile at `at` loads and stores (`t`): A (m, k), B (k, n), partial sums or C (m, n) tiles.
  TileBoxes boxes(const NestIndex& at, const TileWork& t) const {
    auto box = [&](std::uint8_t tensor, std::size_t rows, std::size_t cols) {
      return TensorBox{tensor,
                       {at.batch, 0, at.idx[rows] * l_.tile[rows], at.idx[cols] * l_.tile[cols]},
                       {1, 1, l_.size(rows, at.idx[rows]), l_.size(cols, at.idx[cols])}};
    };
    TileBoxes b;
    if (t.load_bits[std::size_t(Buffer::inputs)]) b.load[std::size_t(Buffer::inputs)] = box(kTensorA, 0, 2);
    if (t.load_bits[std::size_t(Buffer::weights)]) b.load[std::size_t(Buffer::weights)] = box(kTensorB, 2, 1);
    if (t.load_bits[std::size_t(Buffer::outputs)]) b.load[std::size_t(Buffer::outputs)] = box(kTensorPartial, 0, 1);
    if (t.store_bits) b.store = box(at.idx[2] + 1 == l_.trips[2] ? kTensorC : kTensorPartial, 0, 1);
    return b;
  }
  /// The parts of tile(): the array's cycles, ...
  std::uint64_t compute_cycles(const NestIndex& at) const {
    return tile_cycles(l_.size(0, at.idx[0]), l_.size(1, at.idx[1]), l_.size(2, at.idx[2]), f_, c_);
  }
  /// ... the bits loaded into each buffer: the operand tiles the tile before did not use (A into inputs, B
  /// into weights) and the partial sums of an output tile it did not hold ...
  std::array<std::uint64_t, kBufferCount> load_bits(const NestIndex* before, const NestIndex& at) const {
    const std::uint64_t tm = l_.size(0, at.idx[0]), tn = l_.size(1, at.idx[1]), tk = l_.size(2, at.idx[2]);
    std::array<std::uint64_t, kBufferCount> bits{};
    if (other_tile(before, at, 0, 2)) bits[std::size_t(Buffer::inputs)] = tm * tk * s_.a_bits;   // A (m, k)
    if (other_tile(before, at, 1, 2)) bits[std::size_t(Buffer::weights)] = tk * tn * s_.w_bits;  // B (k, n)
    if (other_tile(before, at, 0, 1) && at.idx[2] != 0)
      bits[std::size_t(Buffer::outputs)] = tm * tn * c_.accumulator_bits;  // C (m, n)
    return bits;
  }
  /// ... and the bits stored: the output tile when the tile after evicts it, final after the last k step.
  std::uint64_t store_bits(const NestIndex& at, const NestIndex* after) const {
    if (!other_tile(after, at, 0, 1)) return 0;
    const unsigned bits = at.idx[2] + 1 == l_.trips[2] ? s_.out_bits() : unsigned(c_.accumulator_bits);
    return l_.size(0, at.idx[0]) * l_.size(1, at.idx[1]) * bits;
  }

 private:
  const GemmShape& s_;
  const AccelConfig& c_;
  const Loops l_;
  const Fusion f_;
  const std::size_t order_[3];  // dimension (m, n, k) of each loop, outermost first

  /// Whether `other` (null: none) uses another tile than `at` of the operand indexed by dimensions d1, d2.
  static bool other_tile(const NestIndex* other, const NestIndex& at, std::size_t d1, std::size_t d2) {
    return !other || other->batch != at.batch || other->idx[d1] != at.idx[d1] || other->idx[d2] != at.idx[d2];
  }
};

/// The pipeline's fill and drain: the first tile's load and the last tile's store, which nothing overlaps.
std::uint64_t fill_and_drain_cycles(const GemmNest& nest, const AccelConfig& c) {
  const auto first_load = nest.load_bits(nullptr, NestIndex{});
  return checked_add(dram_cycles(first_load[0] + first_load[1] + first_load[2], c),
                     dram_cycles(nest.store_bits(nest.last(), nullptr), c));
}

/// The indices of a loop of `trips` iterations that a tile's pipeline stage can tell apart, each with the
/// number of indices it stands for. A stage depends on an index only through the edges: whether it is the
/// first (a carry into it from the tile before), the last (the edge tile's size, a carry out of it) or, for
/// the m, n and k loops, the next-to-last (the tile after is the edge tile; `last_edges` 2). The indices
/// between stand for one another.
std::vector<std::pair<std::uint64_t, std::uint64_t>> index_classes(std::uint64_t trips, std::uint64_t last_edges) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> classes = {{0, 1}};
  if (trips > 1 + last_edges) classes.push_back({1, trips - 1 - last_edges});
  for (std::uint64_t i = std::max<std::uint64_t>(1, trips > last_edges ? trips - last_edges : 1); i < trips; ++i)
    classes.push_back({i, 1});
  return classes;
}

/// The pipeline cycles of a tiling's tile sequence without walking it: each class of loop indices'
/// stage (index_classes) once, times the tiles it stands for.
std::uint64_t nest_pipeline_cycles(const GemmNest& nest, std::uint64_t batch, const AccelConfig& c) {
  const Loops& l = nest.loops();
  std::uint64_t cycles = fill_and_drain_cycles(nest, c);
  for (const auto& [b, batches] : index_classes(batch, 1))
    for (const auto& [im, ms] : index_classes(l.trips[0], 2))
      for (const auto& [in, ns] : index_classes(l.trips[1], 2))
        for (const auto& [ik, ks] : index_classes(l.trips[2], 2)) {
          const NestIndex at{b, {im, in, ik}};
          NestIndex before = at, after = at;
          const std::uint64_t previous_store =
              nest.step_back(before) ? dram_cycles(nest.store_bits(before, &at), c) : 0;
          std::uint64_t following_load = 0;
          if (nest.step(after)) {
            const auto bits = nest.load_bits(&at, after);
            following_load = dram_cycles(bits[0] + bits[1] + bits[2], c);
          }
          const std::uint64_t stage = stage_cycles(nest.compute_cycles(at), previous_store, following_load);
          cycles = checked_add(cycles, checked_mul(checked_product({batches, ms, ns, ks}), stage));
        }
  return cycles;
}

/// What a tiling moves and computes over the whole op, in closed form: DRAM bits of A, B, partial sums (each
/// way) and final outputs, and the array's column blocks and k-steps summed over the tiles of one row.
struct Traffic {
  Loops loops;
  std::uint64_t a = 0, w = 0, partial = 0, out = 0;
  std::uint64_t col_steps = 0, k_steps = 0;
};
Traffic traffic(const GemmShape& s, const Loops& loops, const GemmTiling& t, const AccelConfig& c) {
  Traffic x{loops};
  const Loops& l = x.loops;
  const Fusion f = fusion(s.a_bits, s.w_bits);
  const std::uint64_t kdiv = c.rows * f.spatial;
  x.col_steps = (l.trips[1] - 1) * ceil_div(t.tn, c.cols) + ceil_div(l.last[1], c.cols);
  x.k_steps = (l.trips[2] - 1) * ceil_div(t.tk * f.passes, kdiv) + ceil_div(l.last[2] * f.passes, kdiv);
  x.a = checked_mul(s.batch * s.m * s.k * s.a_bits, sweeps(l, t.order, kA));
  x.w = checked_mul(s.batch * s.k * s.n * s.w_bits, sweeps(l, t.order, kB));
  x.partial = checked_mul(s.batch * s.m * s.n * c.accumulator_bits, sweeps(l, t.order, kC) - 1);
  x.out = s.batch * s.m * s.n * s.out_bits();
  return x;
}

/// A tiling's compute cycles, DRAM bits and bound on its pipeline cycles (not the pipeline cycles themselves,
/// nor the energy).
GemmTiling evaluate_bound(const GemmShape& s, const Loops& l, std::array<char, 3> order, const AccelConfig& c) {
  GemmTiling t;
  t.tm = l.tile[0], t.tn = l.tile[1], t.tk = l.tile[2], t.order = order;
  const Traffic x = traffic(s, l, t, c);
  t.compute_cycles = checked_mul(s.batch, checked_mul(s.m, checked_mul(x.col_steps, x.k_steps)));
  t.dram_bits = checked_add(checked_add(x.a, x.w), checked_add(2 * x.partial, x.out));
  // Every tile computes between the fill and the drain; every bit crosses the one DMA channel.
  t.bound_cycles = std::max(checked_add(t.compute_cycles, fill_and_drain_cycles(GemmNest(s, l, order, c), c)),
                            dram_peak_cycles(t.dram_bits, c));
  return t;
}

/// The energy of a tiling's tile sequence (array, DRAM, SRAM), in closed form.
double tiling_energy_pj(const GemmShape& s, const GemmTiling& t, const AccelConfig& c) {
  const Traffic x = traffic(s, make_loops(s, t.tm, t.tn, t.tk), t, c);
  const auto& wb = c.buffer(Buffer::weights);
  const auto& ib = c.buffer(Buffer::inputs);
  const auto& ob = c.buffer(Buffer::outputs);
  const double unit_weight_reads = double(s.batch) * double(x.loops.trips[0]) * double(s.n * s.k * s.w_bits);
  const double unit_input_reads = double(s.batch) * double(s.m * s.k * s.a_bits) * double(x.col_steps);
  const double unit_output_rw = double(s.batch) * double(s.m * s.n * c.accumulator_bits) * double(x.k_steps);
  return double(t.compute_cycles) * c.array_pj_per_cycle + double(t.dram_bits) * c.dram_pj_per_bit +
         double(x.w) * wb.write_pj_per_bit + unit_weight_reads * wb.read_pj_per_bit +
         double(x.a) * ib.write_pj_per_bit + unit_input_reads * ib.read_pj_per_bit +
         double(x.partial) * ob.write_pj_per_bit + double(x.partial + x.out) * ob.read_pj_per_bit +
         unit_output_rw * (ob.read_pj_per_bit + ob.write_pj_per_bit);
}

/// Between two candidates equally fast (within the tie window), a (enumerated a_index-th) is better than b:
/// less energy (relative ties below 1e-9 are rounding); then larger tiles (fewer transfers and per-tile
/// overheads; the public simulator's order of enumeration has the same effect); then enumerated first.
bool better(const GemmTiling& a, std::size_t a_index, const GemmTiling& b, std::size_t b_index) {
  const double scale = std::max(a.energy_pj, b.energy_pj);
  if (std::abs(a.energy_pj - b.energy_pj) > 1e-9 * scale) return a.energy_pj < b.energy_pj;
  if (a.tm * a.tn * a.tk != b.tm * b.tn * b.tk) return a.tm * a.tn * a.tk > b.tm * b.tn * b.tk;
  return a_index < b_index;
}

}  // namespace

std::uint64_t tie_window_cycles(std::uint64_t fastest_cycles) {
  return fastest_cycles + std::min(fastest_cycles / kCycleTieDivisor, ~std::uint64_t{0} - fastest_cycles);
}

std::uint64_t pipeline_cycles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config) {
  return nest_pipeline_cycles(GemmNest(shape, tiling, config), shape.batch, config);
}

GemmTiling evaluate_tiling(const GemmShape& s, std::uint64_t tm, std::uint64_t tn, std::uint64_t tk,
                           std::array<char, 3> order, const AccelConfig& c) {
  GemmTiling t = evaluate_bound(s, make_loops(s, tm, tn, tk), order, c);
  t.pipeline_cycles = pipeline_cycles(s, t, c);
  t.energy_pj = tiling_energy_pj(s, t, c);
  return t;
}

GemmTiling choose_tiling(const GemmShape& s, const AccelConfig& c) {
  const std::uint64_t half_in = c.buffer(Buffer::inputs).half_bits(), half_w = c.buffer(Buffer::weights).half_bits(),
                      half_out = c.buffer(Buffer::outputs).half_bits();
  std::vector<GemmTiling> candidates;  // in the order of enumeration
  candidates.reserve(6 * tile_sizes(s.m).size() * tile_sizes(s.n).size() * tile_sizes(s.k).size());
  for (std::uint64_t tk : tile_sizes(s.k)) {
    for (std::uint64_t tn : tile_sizes(s.n)) {
      if (tk * tn * s.w_bits > half_w) break;
      for (std::uint64_t tm : tile_sizes(s.m)) {
        if (tm * tk * s.a_bits > half_in || tm * tn * c.accumulator_bits > half_out) break;
        const Loops l = make_loops(s, tm, tn, tk);
        for (std::size_t o = 0; o < kOrders.size(); ++o)
          if (first_of_its_nest(o, l)) candidates.push_back(evaluate_bound(s, l, kOrders[o], c));
      }
    }
  }
  if (candidates.empty())
    throw Error(fmt::format("no GEMM tile of {}-bit operands fits the buffers of '{}'", s.a_bits, c.name));
  // Scored by their pipeline cycles in the order of their lower bounds, until the bound alone is past the tie
  // window of the fastest score: no unscored candidate can be as fast. The candidate of the lowest bound is
  // scored first; only those whose bound lies within its window can compete, and only they are sorted.
  auto by_bound = [&](std::size_t a, std::size_t b) { return candidates[a].bound_cycles < candidates[b].bound_cycles; };
  std::size_t lowest = 0;
  for (std::size_t i = 1; i < candidates.size(); ++i)
    if (by_bound(i, lowest)) lowest = i;
  std::uint64_t fastest = candidates[lowest].pipeline_cycles = pipeline_cycles(s, candidates[lowest], c);
  std::vector<std::size_t> contenders;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (i != lowest && candidates[i].bound_cycles <= tie_window_cycles(fastest)) contenders.push_back(i);
  std::stable_sort(contenders.begin(), contenders.end(), by_bound);
  std::vector<std::size_t> scored = {lowest};
  for (std::size_t i : contenders) {
    GemmTiling& t = candidates[i];
    if (t.bound_cycles > tie_window_cycles(fastest)) break;
    t.pipeline_cycles = pipeline_cycles(s, t, c);
    fastest = std::min(fastest, t.pipeline_cycles);
    scored.push_back(i);
  }
  std::optional<std::size_t> best;
  for (std::size_t i : scored) {
    GemmTiling& t = candidates[i];
    if (t.pipeline_cycles > tie_window_cycles(fastest)) continue;
    t.energy_pj = tiling_energy_pj(s, t, c);
    if (!best || better(t, i, candidates[*best], *best)) best = i;
  }
  return candidates[*best];
}

namespace {

/// Walks the loop nest tile by tile, holding the indices of the tiles before, at and after the cursor.
class GemmCursor : public TileCursor {
 public:
  GemmCursor(const TileRun& run, const GemmShape& s, const GemmTiling& g, const AccelConfig& c)
      : run_(run), nest_(s, g, c) {}

  bool next(TileWork& tile) override {
    if (done_) return false;
    NestIndex after = at_;
    const bool more = nest_.step(after);
    tile = nest_.tile(started_ ? &before_ : nullptr, at_, more ? &after : nullptr);
    tile.run = &run_, tile.index = {at_.batch, at_.idx[0], at_.idx[1], at_.idx[2]};
    before_ = at_;
    at_ = after;
    started_ = true;
    done_ = !more;
    return true;
  }

 private:
  const TileRun& run_;
  GemmNest nest_;
  NestIndex before_, at_;
  bool started_ = false, done_ = false;
};

class GemmRun : public TileRun {
 public:
  GemmRun(const GemmShape& s, const GemmTiling& g, const AccelConfig& c) : shape_(s), tiling_(g), config_(c) {}
  std::uint64_t tile_count() const override {
    const Loops l = make_loops(shape_, tiling_.tm, tiling_.tn, tiling_.tk);
    return checked_product({shape_.batch, l.trips[0], l.trips[1], l.trips[2]});
  }
  std::unique_ptr<TileCursor> cursor() const override {
    return std::make_unique<GemmCursor>(*this, shape_, tiling_, config_);
  }
  TileBoxes boxes(const TileWork& t) const override {
    return GemmNest(shape_, tiling_, config_).boxes({t.index[0], {t.index[1], t.index[2], t.index[3]}}, t);
  }
  std::vector<TensorShape> tensors() const override {  // by GemmTensor
    const GemmShape& s = shape_;
    return {{{s.batch, 1, s.m, s.k}, s.a_bits},
            {{s.batch, 1, s.k, s.n}, s.w_bits},
            {{s.batch, 1, s.m, s.n}, unsigned(config_.accumulator_bits)},
            {{s.batch, 1, s.m, s.n}, s.out_bits()}};
  }

 private:
  GemmShape shape_;
  GemmTiling tiling_;
  AccelConfig config_;
};

}  // namespace

std::shared_ptr<const TileRun> gemm_tiles(const GemmShape& s, const GemmTiling& g, const AccelConfig& c) {
  return std::make_shared<GemmRun>(s, g, c);
}

}  // namespace ecosim::accel
