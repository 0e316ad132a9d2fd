// Direct convolution tiling: the tile-size search scored by the exact pipeline, class by class (tilings' timing
// remembered per thread for the configuration's timing parts, pipeline_memo.hpp), and the tile sequence of a tiling (a
// tile from its loop indices and its neighbours', with halo input tiles; formulas in conv_tiling.hpp).
#include "ecosim/accel_model/conv_tiling.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <array>
#include <deque>
#include <initializer_list>
#include <optional>
#include <vector>

#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "fastest_candidate.hpp"
#include "loop_nest.hpp"
#include "memory_walk.hpp"
#include "pipeline_memo.hpp"

namespace ecosim::accel {

namespace {

/// One loop over `dim` elements in tiles of `tile`.
struct Axis {
  std::uint64_t dim = 1, tile = 1, trips = 1;
  Axis(std::uint64_t d, std::uint64_t t) : dim(d), tile(t), trips(ceil_div(d, t)) {}
  std::uint64_t size(std::uint64_t i) const { return i + 1 == trips ? dim - i * tile : tile; }
};

/// Input rows (or columns) output tile i of `out` reads along an axis of `in` elements: its halo, clipped to the
/// image (padding is generated on chip, never fetched), as its first index and extent.
struct Halo {
  std::uint64_t start = 0, extent = 0;
};
Halo halo(const Axis& out, std::uint64_t i, std::uint64_t in, std::uint64_t kernel, std::uint64_t stride,
          std::uint64_t pad) {
  const auto first = std::int64_t(i * out.tile * stride) - std::int64_t(pad);
  const auto last = std::int64_t((i * out.tile + out.size(i) - 1) * stride + kernel - 1) - std::int64_t(pad);
  const std::int64_t lo = std::max<std::int64_t>(first, 0), hi = std::min<std::int64_t>(last, std::int64_t(in) - 1);
  return hi < lo ? Halo{} : Halo{std::uint64_t(lo), std::uint64_t(hi - lo + 1)};
}

/// The loops of a tiling, by position in an index: group, output-channel tile, image, output-row tile,
/// output-column tile, input-channel tile.
enum Loop : std::size_t { kGroup, kOutCh, kImage, kRow, kCol, kInCh, kLoops };
using Index = LoopNest<kLoops>::Index;
using Order = std::array<std::size_t, kLoops>;  // the loops, outermost first

class ConvNest {
 public:
  ConvNest(const ConvShape& s, unsigned a_bits, unsigned w_bits, const ConvTiling& t, const AccelConfig& c)
      : s_(s),
        c_(c),
        a_bits_(a_bits),
        w_bits_(w_bits),
        k_(s.group_out_channels(), t.tk),
        h_(s.out_h(), t.th),
        w_(s.out_w(), t.tw),
        ch_(s.group_in_channels(), t.tc),
        nest_({s.groups, k_.trips, s.batch, h_.trips, w_.trips, ch_.trips},
              t.out_channels_outer ? Order{kGroup, kOutCh, kImage, kRow, kCol, kInCh}
                                   : Order{kGroup, kImage, kRow, kCol, kOutCh, kInCh}) {}

  const Axis& out_channels() const { return k_; }
  const Axis& rows() const { return h_; }
  const Axis& cols() const { return w_; }
  const Axis& in_channels() const { return ch_; }
  const LoopNest<kLoops>& nest() const { return nest_; }
  /// How many times each tile of a tensor indexed by the loops `deps` is fetched: once per iteration of every
  /// loop it does not depend on that sits outside its innermost dependency of more than one trip.
  std::uint64_t sweeps(std::initializer_list<Loop> deps) const {
    auto depends = [&](std::size_t l) { return std::find(deps.begin(), deps.end(), l) != deps.end(); };
    const Order& order = nest_.order();
    std::size_t innermost = 0;  // one past it
    for (std::size_t p = 0; p < kLoops; ++p)
      if (depends(order[p]) && nest_.trips(order[p]) > 1) innermost = p + 1;
    std::uint64_t factor = 1;
    for (std::size_t p = 0; p + 1 < innermost; ++p)
      if (!depends(order[p])) factor = checked_mul(factor, nest_.trips(order[p]));
    return factor;
  }

  Halo in_rows(std::uint64_t i) const { return halo(h_, i, s_.in_h, s_.kernel_h, s_.stride, s_.padding); }
  Halo in_cols(std::uint64_t j) const { return halo(w_, j, s_.in_w, s_.kernel_w, s_.stride, s_.padding); }
  /// The tensors the tiles' boxes index: input [N][C][H][W], weights [K][C/groups][R][S], output
  /// [N][K][out_h][out_w] (at max(a, w) bits).
  std::vector<TensorShape> tensors() const {
    return {{{s_.batch, s_.in_channels, s_.in_h, s_.in_w}, a_bits_},
            {{s_.out_channels, s_.group_in_channels(), s_.kernel_h, s_.kernel_w}, w_bits_},
            {{s_.batch, s_.out_channels, s_.out_h(), s_.out_w()}, std::max(a_bits_, w_bits_)}};
  }

  /// The tile at `at`, `before` and `after` being the tiles around it (null at the op's start and end).
  TileWork tile(const Index* before, const Index& at, const Index* after) const {
    const std::uint64_t pixels = h_.size(at[kRow]) * w_.size(at[kCol]), tk = k_.size(at[kOutCh]),
                        tc = ch_.size(at[kInCh]);
    TileWork t = array_tile(pixels, tk, tc * s_.kernel_h * s_.kernel_w, a_bits_, w_bits_, c_);
    if (differs(before, at, {kGroup, kImage, kRow, kCol, kInCh}))
      t.load_bits[std::size_t(Buffer::inputs)] = tc * in_rows(at[kRow]).extent * in_cols(at[kCol]).extent * a_bits_;
    if (differs(before, at, {kGroup, kOutCh, kInCh}))
      t.load_bits[std::size_t(Buffer::weights)] = tk * tc * s_.kernel_h * s_.kernel_w * w_bits_;
    if (differs(after, at, {kGroup, kOutCh, kImage, kRow, kCol}))
      t.store_bits = pixels * tk * std::max(a_bits_, w_bits_);
    return t;
  }
  /// Where the tile at `at` (`t`) loads and stores: the input tile with its halo, the weight tile, the output
  /// tile.
  TileBoxes boxes(const Index& at, const TileWork& t) const {
    const std::uint64_t k0 = at[kGroup] * k_.dim + at[kOutCh] * k_.tile, c0 = at[kInCh] * ch_.tile;
    const std::uint64_t tk = k_.size(at[kOutCh]), tc = ch_.size(at[kInCh]);
    TileBoxes b;
    if (t.load_bits[std::size_t(Buffer::inputs)]) {
      const Halo rows = in_rows(at[kRow]), cols = in_cols(at[kCol]);
      b.load[std::size_t(Buffer::inputs)] = {
          0, {at[kImage], at[kGroup] * ch_.dim + c0, rows.start, cols.start}, {1, tc, rows.extent, cols.extent}};
    }
    if (t.load_bits[std::size_t(Buffer::weights)])
      b.load[std::size_t(Buffer::weights)] = {1, {k0, c0, 0, 0}, {tk, tc, s_.kernel_h, s_.kernel_w}};
    if (t.store_bits)
      b.store = {
          2, {at[kImage], k0, at[kRow] * h_.tile, at[kCol] * w_.tile}, {1, tk, h_.size(at[kRow]), w_.size(at[kCol])}};
    return b;
  }
  /// tile() as a callable for LoopNest and NestCursor (valid while this nest lives).
  auto tiler() const {
    return [this](const Index* before, const Index& at, const Index* after) { return tile(before, at, after); };
  }
  /// By loop, the last indices its tiles set apart: along the channel loops the last and next-to-last (edge
  /// tiles, carries, the edge tile after), along groups and images the last; rows and columns are keyed by
  /// their tiles' sizes and clipped halos instead (kKeyed).
  static constexpr std::uint64_t kKeyed = ~std::uint64_t{0};
  static constexpr std::array<std::uint64_t, kLoops> kLastEdges = {1, 2, 1, kKeyed, kKeyed, 2};
  /// By loop, the indices whose tiles stand for one another (NestCursor; none along the keyed loops).
  std::array<IndexRange, kLoops> middles() const {
    std::array<IndexRange, kLoops> m;
    for (std::size_t l = 0; l < kLoops; ++l)
      if (kLastEdges[l] != kKeyed) m[l] = middle_indices(nest_.trips(l), kLastEdges[l]);
    return m;
  }
  /// The tiles by class: along each edge loop the first index, the middle ones and each of the last kLastEdges,
  /// along rows and columns the tiles alike in size and clipped halo (theirs and the next tile's).
  void visit_classes(const TileClassVisitor& visit) const {
    auto rows = [&](std::uint64_t i) { return std::pair(h_.size(i), in_rows(i).extent); };
    auto cols = [&](std::uint64_t j) { return std::pair(w_.size(j), in_cols(j).extent); };
    std::array<IndexClasses, kLoops> classes;
    for (std::size_t l = 0; l < kLoops; ++l)
      if (kLastEdges[l] != kKeyed) classes[l] = edge_classes(nest_.trips(l), kLastEdges[l]);
    classes[kRow] = keyed_classes(h_.trips, rows);
    classes[kCol] = keyed_classes(w_.trips, cols);
    nest_.visit_classes(classes, tiler(), visit);
  }

 private:
  const ConvShape s_;
  const AccelConfig& c_;
  const unsigned a_bits_, w_bits_;
  const Axis k_, h_, w_, ch_;
  const LoopNest<kLoops> nest_;

  /// Whether `other` (null: the op's start or end) is at other indices than `at` along `loops`.
  static bool differs(const Index* other, const Index& at, std::initializer_list<Loop> loops) {
    return !other || std::any_of(loops.begin(), loops.end(), [&](Loop l) { return (*other)[l] != at[l]; });
  }
};

class ConvRun : public TileRun {
 public:
  ConvRun(const ConvShape& s, unsigned a_bits, unsigned w_bits, const ConvTiling& t, const AccelConfig& c)
      : config_(c), nest_(s, a_bits, w_bits, t, config_) {}
  std::uint64_t tile_count() const override { return nest_.nest().tile_count(); }
  std::unique_ptr<TileCursor> cursor() const override {
    return std::make_unique<NestCursor<kLoops, decltype(nest_.tiler())>>(*this, nest_.nest(), nest_.tiler(),
                                                                         nest_.middles());
  }
  void visit_classes(const TileClassVisitor& visit) const override { nest_.visit_classes(visit); }
  TileBoxes boxes(const TileWork& t) const override {
    Index at;
    std::copy_n(t.index.begin(), kLoops, at.begin());
    return nest_.boxes(at, t);
  }
  std::vector<TensorShape> tensors() const override { return nest_.tensors(); }

 private:
  AccelConfig config_;
  ConvNest nest_;
};

}  // namespace

std::string ConvTiling::describe() const {
  return fmt::format(
      "direct conv, tile {}x{} px × {} out-ch × {} in-ch, halo input tiles, out-ch tiles {} the "
      "image's",
      th, tw, tk, tc, out_channels_outer ? "outside" : "inside");
}

namespace {

/// A tiling's compute cycles, DRAM bits and bound on its pipeline cycles (not the pipeline cycles themselves,
/// nor the energy).
ConvTiling evaluate_bound(const ConvShape& s, unsigned a_bits, unsigned w_bits, const ConvTiling& tiles,
                          const AccelConfig& c) {
  ConvTiling t = tiles;
  const ConvNest nest(s, a_bits, w_bits, t, c);
  std::uint64_t rows = 0, cols = 0, col_steps = 0, k_steps = 0;
  for (std::uint64_t i = 0; i < nest.rows().trips; ++i) rows += nest.in_rows(i).extent;
  for (std::uint64_t j = 0; j < nest.cols().trips; ++j) cols += nest.in_cols(j).extent;
  const Fusion f = fusion(a_bits, w_bits, c);
  for (std::uint64_t i = 0; i < nest.out_channels().trips; ++i)
    col_steps += ceil_div(nest.out_channels().size(i), c.cols);
  for (std::uint64_t i = 0; i < nest.in_channels().trips; ++i)
    k_steps += ceil_div(nest.in_channels().size(i) * s.kernel_h * s.kernel_w * f.passes, c.rows * f.spatial);
  const std::uint64_t inputs =
      checked_product({s.batch, s.in_channels, rows, cols, a_bits, nest.sweeps({kGroup, kImage, kRow, kCol, kInCh})});
  const std::uint64_t weights = checked_product({s.out_channels, s.k(), w_bits, nest.sweeps({kGroup, kOutCh, kInCh})});
  const std::uint64_t outputs = checked_product({s.batch, s.out_channels, s.m(), std::max(a_bits, w_bits)});
  t.dram_bits = checked_add(checked_add(inputs, weights), outputs);
  t.compute_cycles = checked_product({s.batch, s.groups, s.m(), col_steps, k_steps});
  // Every tile computes between the fill and the drain; every bit crosses the one DMA channel.
  t.bound_cycles =
      std::max(checked_add(t.compute_cycles, fill_and_drain_cycles(nest, c)), dram_peak_cycles(t.dram_bits, c));
  return t;
}

std::uint64_t pipeline_cycles(const ConvShape& s, unsigned a_bits, unsigned w_bits, const ConvTiling& t,
                              const AccelConfig& c) {
  return cycles_by_class(ConvNest(s, a_bits, w_bits, t, c), c);
}
double energy_pj(const ConvShape& s, unsigned a_bits, unsigned w_bits, const ConvTiling& t, const AccelConfig& c) {
  return energy_by_class(ConvNest(s, a_bits, w_bits, t, c), c);
}

}  // namespace

ConvTiling evaluate_conv_tiling(const ConvShape& s, unsigned a_bits, unsigned w_bits, std::uint64_t th,
                                std::uint64_t tw, std::uint64_t tk, std::uint64_t tc, bool out_channels_outer,
                                const AccelConfig& c) {
  ConvTiling t = evaluate_bound(s, a_bits, w_bits, ConvTiling{th, tw, tk, tc, out_channels_outer}, c);
  t.pipeline_cycles = pipeline_cycles(s, a_bits, w_bits, t, c);
  t.energy_pj = energy_pj(s, a_bits, w_bits, t, c);
  return t;
}

ConvTiling choose_conv_tiling(const ConvShape& s, unsigned a_bits, unsigned w_bits, const AccelConfig& c) {
  const std::uint64_t half_in = c.buffer(Buffer::inputs).half_bits(), half_w = c.buffer(Buffer::weights).half_bits(),
                      half_out = c.buffer(Buffer::outputs).half_bits();
  const std::uint64_t rs = s.kernel_h * s.kernel_w;
  // The candidates' timing: remembered for the configuration's timing parts, or (a memory model's timing) made
  // for this search alone.
  const std::optional<TimingParts> timing = timing_parts(c);
  ConvTimingMemo* memo = timing ? &conv_timing_memo() : nullptr;
  std::deque<ConvTiming> own;
  std::vector<ConvTiming*> candidates;  // in the order of enumeration
  auto add = [&](const ConvTiling& tiles) {
    auto bound = [&] { return ConvTiming{evaluate_bound(s, a_bits, w_bits, tiles, c), std::nullopt}; };
    if (!memo) return candidates.push_back(&own.emplace_back(bound()));
    const ConvTimingKey key{s,      a_bits, w_bits, tiles.th, tiles.tw, tiles.tk, tiles.tc, tiles.out_channels_outer,
                            *timing};
    auto [entry, added] = memo->try_emplace(key);
    if (added) entry->second = bound();
    candidates.push_back(&entry->second);
  };
  for (std::uint64_t tc : tile_sizes(s.group_in_channels())) {
    for (std::uint64_t tk : tile_sizes(s.group_out_channels(), c.cols)) {  // whole columns of any array
      if (tk * tc * rs * w_bits > half_w) break;
      for (std::uint64_t th : tile_sizes(s.out_h())) {
        const std::uint64_t rows = std::min(s.in_h, (th - 1) * s.stride + s.kernel_h);
        for (std::uint64_t tw : tile_sizes(s.out_w())) {
          const std::uint64_t cols = std::min(s.in_w, (tw - 1) * s.stride + s.kernel_w);
          if (tc * rows * cols * a_bits > half_in || th * tw * tk * c.accumulator_bits > half_out) break;
          for (const bool out_channels_outer : {true, false}) {
            if (!out_channels_outer && tk == s.group_out_channels()) break;  // one output-channel tile: same walk
            add({th, tw, tk, tc, out_channels_outer});
          }
        }
      }
    }
  }
  if (candidates.empty())
    throw Error(fmt::format("no convolution tile of {}-bit operands ({}×{} kernel) fits the buffers of '{}'", a_bits,
                            s.kernel_h, s.kernel_w, c.name));
  auto tiling = [&](std::size_t i) -> const ConvTiling& { return candidates[i]->bound; };
  auto tile = [&](std::size_t i) { return tiling(i).th * tiling(i).tw * tiling(i).tk * tiling(i).tc; };
  std::vector<double> energies(candidates.size());  // of those that can tie
  auto bound = [&](std::size_t i) { return tiling(i).bound_cycles; };
  auto score = [&](std::size_t i) {
    std::optional<std::uint64_t>& cycles = candidates[i]->pipeline_cycles;
    if (!cycles) cycles = pipeline_cycles(s, a_bits, w_bits, tiling(i), c);
    return *cycles;
  };
  auto energy = [&](std::size_t i) { return energies[i] = energy_pj(s, a_bits, w_bits, tiling(i), c); };
  auto better = [&](std::size_t a, std::size_t b) {
    return better_tie(energies[a], tile(a), a, energies[b], tile(b), b);
  };
  std::size_t best = fastest_candidate(candidates.size(), bound, score, energy, better);
  if (c.memory_bound) {
    auto run = [&](std::size_t i) { return conv_tiles(s, a_bits, w_bits, tiling(i), c); };
    best = fastest_walked_candidate(
        candidates.size(), best, bound, score, [&](std::size_t i) { return tiling(i).dram_bits; },
        [&](std::size_t i) { return memory_walked_estimate(run(i), c, tiling(i).dram_bits, tiling(i).bound_cycles); },
        [&](std::size_t i) { return memory_walked_cycles(run(i), c); }, energy, better, kMemoryWalkBits);
  }
  ConvTiling chosen = tiling(best);
  chosen.pipeline_cycles = score(best);
  chosen.energy_pj = energy(best);
  return chosen;
}

std::shared_ptr<const TileRun> conv_tiles(const ConvShape& s, unsigned a_bits, unsigned w_bits,
                                          const ConvTiling& tiling, const AccelConfig& c) {
  return std::make_shared<ConvRun>(s, a_bits, w_bits, tiling, c);
}

}  // namespace ecosim::accel
