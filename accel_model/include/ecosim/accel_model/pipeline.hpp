// The tile pipeline both timing engines model, defined once. Operands and outputs are double-buffered and one
// DMA channel moves data in a fixed order: while tile i computes, the DMA first stores tile i−1's outputs
// (that frees the output half tile i+1 will use) and then loads tile i+1's operands (into the halves tile i−1
// used); the DMA's stage i starts once tiles 0…i−1 have computed. A tile computes once it is loaded, its unit
// (array or vector unit) has finished its previous tile and every earlier tile has computed — except, with
// config.overlap_units, the tile just before it when it is TileWork::beside_previous (the next QKᵀ of a fused
// attention beside the softmax before it). Without such tiles, per op of T tiles with l/c/s the load, compute
// and store cycles of tile i (s₋₁ = l_T = 0):
//   cycles = l₀ + Σᵢ max(cᵢ, sᵢ₋₁ + lᵢ₊₁) + s_{T−1}
// With config.prefetch_weights the SystemC model loads the next op's first weight tile during an op's last
// tile when the DMA would idle that long anyway; the closed form assumes it does wherever it may — the store of
// the tile before the last plus the weights' load within the last tile's computation — (a lower bound): such an
// op starts with l₀ minus its weights (see `weights_prefetched`).
// The recurrence is fed tile by tile (PipelineClock, the SystemC model's order) or, for an op whose tiles compute
// one after another, class by class (ClassClock: tiles alike with neighbours alike have equal stages,
// TileRun::visit_classes).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

/// The cycles of one tile's three steps (a DMA-only tile computes for 0 cycles).
struct TileTimes {
  std::uint64_t load = 0, compute = 0, store = 0;
};
inline std::uint64_t load_cycles(const TileWork& tile, const AccelConfig& config) {
  return dram_cycles(tile.load_total_bits(), config);
}
inline std::uint64_t unit_cycles(const TileWork& tile) { return tile.unit == Unit::dma ? 0 : tile.compute_cycles; }
inline std::uint64_t store_cycles(const TileWork& tile, const AccelConfig& config) {
  return dram_cycles(tile.store_bits, config);
}
inline TileTimes tile_times(const TileWork& tile, const AccelConfig& config) {
  return {load_cycles(tile, config), unit_cycles(tile), store_cycles(tile, config)};
}

/// Stage i of an op whose tiles all compute one after another (the formula above): tile i's computation
/// beside the DMA's store of tile i−1 and load of tile i+1.
inline std::uint64_t stage_cycles(std::uint64_t compute, std::uint64_t previous_store, std::uint64_t following_load) {
  return std::max(compute, checked_add(previous_store, following_load));
}

/// An op's first load: all of the first tile's operands, or all but its weights when they were prefetched.
inline std::uint64_t first_load_cycles(const TileWork& first, const AccelConfig& config, bool weights_prefetched) {
  const std::uint64_t weights = weights_prefetched ? first.load_bits[std::size_t(Buffer::weights)] : 0;
  return dram_cycles(first.load_total_bits() - weights, config);
}

/// True when `tile` may compute beside the tile just before it under `config`.
inline bool overlaps_previous(const TileWork& tile, const AccelConfig& config) {
  return config.overlap_units && tile.beside_previous;
}

/// An op's cycles in the pipeline model, from its tiles fed in order (a max-plus recurrence over the tiles'
/// load, start and finish times; the tiles themselves are not kept).
class PipelineClock {
 public:
  /// `weights_prefetched`: the first tile's weights are already on chip (its load moves the other bits).
  explicit PipelineClock(const AccelConfig& config, bool weights_prefetched = false)
      : config_(config), weights_prefetched_(weights_prefetched) {}
  void add(const TileWork& tile) {
    TileTimes t = tile_times(tile, config_);
    if (!started_) {
      t.load = first_load_cycles(tile, config_, weights_prefetched_);
      s_.dma = t.load;  // nothing overlaps the first load
      started_ = true;
    } else {
      dma_stage(s_, t.load);
      compute_pending(s_);
    }
    s_.pending = t;
    s_.pending_loaded = s_.dma;
    s_.pending_unit = std::size_t(tile.unit);
    s_.pending_beside = overlaps_previous(tile, config_);
  }
  /// The tiles of `stretch` in order (TileStretch), each repetition fed until the pipeline is periodic: once
  /// the clock after a repetition is the clock c ≤ kMaxPeriod repetitions before with every time shifted by
  /// one δ, every further c repetitions shift it by δ again (the recurrence is max-plus: max and + of times,
  /// so adding δ to every time it reads adds δ to every time it writes), and whole periods are added at once.
  void add(const TileStretch& stretch) {
    const unsigned units = units_of(stretch);
    std::array<State, kMaxPeriod> after{};  // the clock after each of the last repetitions (ring buffer)
    bool periodic = false;
    for (std::uint64_t r = 0; r < stretch.repeat; ++r) {
      for (const TileWork& tile : stretch.tiles) add(tile);
      for (const TileStretch& part : stretch.parts) add(part);
      for (std::uint64_t c = 1; !periodic && c <= std::min<std::uint64_t>(r, kMaxPeriod); ++c) {
        const std::optional<std::uint64_t> delta = shift(after[(r - c) % kMaxPeriod], s_, units);
        if (!delta) continue;
        const std::uint64_t periods = (stretch.repeat - 1 - r) / c;
        advance(s_, checked_mul(periods, *delta), units);
        r += periods * c;
        periodic = true;  // the repetitions left (fewer than c) are fed one by one
      }
      after[r % kMaxPeriod] = s_;
    }
  }
  /// The cycles of the tiles added so far, the last of them being the op's last (0 for none).
  std::uint64_t cycles() const {
    if (!started_) return 0;
    State s = s_;
    dma_stage(s, 0);
    compute_pending(s);
    return checked_add(std::max(s.dma, s.computed), s.pending.store);
  }

 private:
  struct State {
    std::uint64_t dma = 0;                // when the DMA finished its last transfer
    std::uint64_t computed = 0;           // when every tile computed so far had finished
    std::uint64_t computed_before = 0;    // the same, one tile earlier
    std::array<std::uint64_t, 3> free{};  // by Unit: when its last tile finished
    std::uint64_t previous_store = 0;     // store cycles of the last tile computed
    TileTimes pending;                    // the last tile added, not computed yet
    std::uint64_t pending_loaded = 0;     // when its load finished
    std::size_t pending_unit = 0;
    bool pending_beside = false;
  };
  static constexpr std::uint64_t kMaxPeriod = 4;  // the longest period of repetitions add(TileStretch) looks for

  /// The units (bit per Unit) the tiles of `stretch` compute on.
  static unsigned units_of(const TileStretch& stretch) {
    unsigned units = 0;
    for (const TileWork& tile : stretch.tiles) units |= 1u << unsigned(tile.unit);
    for (const TileStretch& part : stretch.parts) units |= units_of(part);
    return units;
  }
  /// δ when `b` is `a` with every time shifted by δ (the free times of the units not in `units`, which the
  /// stretch neither reads nor writes, unchanged) and everything else equal; nullopt otherwise.
  static std::optional<std::uint64_t> shift(const State& a, const State& b, unsigned units) {
    if (b.computed < a.computed) return std::nullopt;
    const std::uint64_t d = b.computed - a.computed;
    auto shifted = [d](std::uint64_t x, std::uint64_t y) { return y >= x && y - x == d; };
    for (std::size_t u = 0; u < a.free.size(); ++u)
      if (units >> u & 1u ? !shifted(a.free[u], b.free[u]) : a.free[u] != b.free[u]) return std::nullopt;
    const bool same = shifted(a.dma, b.dma) && shifted(a.computed_before, b.computed_before) &&
                      shifted(a.pending_loaded, b.pending_loaded) && a.previous_store == b.previous_store &&
                      a.pending.load == b.pending.load && a.pending.compute == b.pending.compute &&
                      a.pending.store == b.pending.store && a.pending_unit == b.pending_unit &&
                      a.pending_beside == b.pending_beside;
    return same ? std::optional(d) : std::nullopt;
  }
  /// Adds `d` to every time of `s` (the free times of `units` only).
  static void advance(State& s, std::uint64_t d, unsigned units) {
    for (std::uint64_t* t : {&s.dma, &s.computed, &s.computed_before, &s.pending_loaded}) *t = checked_add(*t, d);
    for (std::size_t u = 0; u < s.free.size(); ++u)
      if (units >> u & 1u) s.free[u] = checked_add(s.free[u], d);
  }
  /// The DMA's stage for the pending tile: the previous tile's store and the next tile's load.
  static void dma_stage(State& s, std::uint64_t next_load) {
    s.dma = checked_add(checked_add(std::max(s.dma, s.computed), s.previous_store), next_load);
  }
  static void compute_pending(State& s) {
    const std::uint64_t ready = s.pending_beside ? s.computed_before : s.computed;
    const std::uint64_t done =
        checked_add(std::max({s.pending_loaded, s.free[s.pending_unit], ready}), s.pending.compute);
    s.free[s.pending_unit] = done;
    s.computed_before = s.computed;
    s.computed = std::max(s.computed, done);
    s.previous_store = s.pending.store;
  }

  const AccelConfig& config_;
  bool weights_prefetched_, started_ = false;
  State s_;
};

/// An op's cycles in the pipeline model from its tiles by class (TileRun::visit_classes, one run whose tiles
/// compute one after another: none overlaps the one before it): the first tile's load (less its weights when
/// prefetched, as PipelineClock), each class's stage times the tiles it stands for, the last tile's store.
class ClassClock {
 public:
  explicit ClassClock(const AccelConfig& config, bool weights_prefetched = false)
      : config_(config), weights_prefetched_(weights_prefetched) {}
  void add(const TileWork* before, const TileWork& at, const TileWork* after, std::uint64_t count) {
    if (!before) cycles_ = checked_add(cycles_, first_load_cycles(at, config_, weights_prefetched_));  // l₀
    if (!after) cycles_ = checked_add(cycles_, store_cycles(at, config_));                             // s_{T−1}
    const std::uint64_t stage = stage_cycles(unit_cycles(at), before ? store_cycles(*before, config_) : 0,
                                             after ? load_cycles(*after, config_) : 0);
    cycles_ = checked_add(cycles_, checked_mul(stage, count));
  }
  std::uint64_t cycles() const { return cycles_; }

 private:
  const AccelConfig& config_;
  bool weights_prefetched_;
  std::uint64_t cycles_ = 0;
};

}  // namespace ecosim::accel
