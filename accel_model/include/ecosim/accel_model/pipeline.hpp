// The tile pipeline both timing engines model, defined once. Operands and outputs are double-buffered and one
// DMA channel moves data in a fixed order: while tile i computes, the DMA first stores tile i−1's outputs
// (that frees the output half tile i+1 will use) and then loads tile i+1's operands (into the halves tile i−1
// used); tile i+1 starts when tile i and that DMA work are both done. Per op of T tiles, with l/c/s the load,
// compute and store cycles of tile i (s₋₁ = l_T = 0):
//   cycles = l₀ + Σᵢ max(cᵢ, sᵢ₋₁ + lᵢ₊₁) + s_{T−1}
// fed tile by tile (PipelineClock, the SystemC model's order) or class by class (ClassClock: tiles alike with
// neighbours alike have equal stages, TileRun::visit_classes).
#pragma once
#include <algorithm>
#include <cstdint>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

/// The cycles of one tile's three steps (a DMA-only tile computes for 0 cycles).
struct TileTimes {
  std::uint64_t load = 0, compute = 0, store = 0;
};
inline TileTimes tile_times(const TileWork& tile, const AccelConfig& config) {
  return {dram_cycles(tile.load_total_bits(), config), tile.unit == Unit::dma ? 0 : tile.compute_cycles,
          dram_cycles(tile.store_bits, config)};
}

/// Stage i: tile i's computation beside the DMA's store of tile i−1 and load of tile i+1.
inline std::uint64_t stage_cycles(std::uint64_t compute, std::uint64_t previous_store, std::uint64_t following_load) {
  return std::max(compute, checked_add(previous_store, following_load));
}

/// An op's cycles in the pipeline model, from its tiles fed in order.
class PipelineClock {
 public:
  explicit PipelineClock(const AccelConfig& config) : config_(config) {}
  void add(const TileWork& tile) {
    const TileTimes t = tile_times(tile, config_);
    if (!started_) {
      closed_ = t.load;  // l₀: nothing overlaps the first load
      started_ = true;
    } else {
      closed_ = checked_add(closed_, stage_cycles(last_.compute, previous_store_, t.load));
      previous_store_ = last_.store;
    }
    last_ = t;
  }
  /// The cycles of the tiles added so far, the last of them being the op's last (0 for none).
  std::uint64_t cycles() const {
    if (!started_) return 0;
    return checked_add(checked_add(closed_, stage_cycles(last_.compute, previous_store_, 0)), last_.store);
  }

 private:
  const AccelConfig& config_;
  bool started_ = false;
  std::uint64_t closed_ = 0;          // the first load and the stages of every tile before the last one added
  std::uint64_t previous_store_ = 0;  // store of the tile before the last one added
  TileTimes last_;                    // the last tile added (its stage waits for the next tile's load)
};

/// An op's cycles in the pipeline model from its tiles by class (TileRun::visit_classes, one run): the first
/// tile's load, each class's stage times the tiles it stands for, the last tile's store.
class ClassClock {
 public:
  explicit ClassClock(const AccelConfig& config) : config_(config) {}
  void add(const TileWork* before, const TileWork& at, const TileWork* after, std::uint64_t count) {
    const TileTimes t = tile_times(at, config_);
    if (!before) cycles_ = checked_add(cycles_, t.load);  // l₀
    if (!after) cycles_ = checked_add(cycles_, t.store);  // s_{T−1}
    const std::uint64_t stage = stage_cycles(t.compute, before ? tile_times(*before, config_).store : 0,
                                             after ? tile_times(*after, config_).load : 0);
    cycles_ = checked_add(cycles_, checked_mul(stage, count));
  }
  std::uint64_t cycles() const { return cycles_; }

 private:
  const AccelConfig& config_;
  std::uint64_t cycles_ = 0;
};

}  // namespace ecosim::accel
