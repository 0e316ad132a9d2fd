// Internal: the SystemC engine's fast-forward over steady runs of alike tiles (walked_tiles() in replay.hpp counts
// the tiles it leaves to walk).
//
// A tile that does not compute beside the one before it (pipeline.hpp) starts once every earlier tile has computed
// and it is loaded, and the DMA is idle then (its stage ended with that load): the pipeline's state at that
// moment is its time alone, and what follows depends on the tiles from the one before it on. Between two such
// moments a period's stages — tiles beside the ones before them included, as in fused attention — therefore
// repeat their times when their tiles repeat: without such tiles every stage lasts max(c_i, s_{i−1} + l_{i+1}). The engine walks tiles one by one until its cursor reports a repetition ahead (TileCursor::
// repeat_ahead) and the stages it walked show it too — the last period's tiles alike the period's before, and
// as long — and then passes over whole periods at once: their transfers and computations are charged together,
// the simulated time advances by their length, and the walk resumes where the repetition ends. Under a memory
// model with state (`dram`) a transfer's time depends on the transfers before it, so nothing is skipped there.
#pragma once
#include <cstdint>
#include <deque>
#include <optional>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

/// A stage of the walk: the tile that started computing, and when (0 in an untimed walk).
struct WalkedStage {
  TileWork tile;
  std::uint64_t start_cycle = 0;
};

/// What a fast-forward passes over: `periods` periods of `period` stages, each period `period_cycles` long.
struct FastForwardSkip {
  std::uint64_t period = 0, periods = 0, period_cycles = 0;
};

class FastForward {
 public:
  static constexpr std::uint64_t kMaxPeriod = 16;  // the longest repetition looked for, in tiles
  static constexpr std::uint64_t kMinPeriods = 2;  // the fewest periods passed over at once

  /// Whether `config` lets the SystemC engine fast-forward: systemc.fast_forward, and a memory model without state.
  static bool enabled(const AccelConfig& config);

  /// `timed_units`: each unit's busy intervals are drawn (a timeline), so a period whose tiles compute beside the
  /// ones before them — whose intervals start within their stages, not with them — is walked.
  explicit FastForward(const AccelConfig& config, bool timed_units = false)
      : config_(config), timed_units_(timed_units) {}
  /// Tile `tile`, the last one `cursor` gave, starts computing at `start_cycle` (none: an untimed walk, whose
  /// stages are taken as timed alike): the periods ahead to pass over, if any.
  std::optional<FastForwardSkip> stage(const TileWork& tile, std::optional<std::uint64_t> start_cycle,
                                       const TileCursor& cursor);
  /// The stage `back` places before the last one walked (0: the last); a skip's pattern is back(period + 1) …
  /// back(0).
  const WalkedStage& back(std::size_t back) const { return stages_[stages_.size() - 1 - back]; }
  /// Forgets the stages walked (after a skip, and as an op starts).
  void clear() { stages_.clear(); }

  /// Passes `cursor` over the stages `skip` stands for, ahead of the tile it gave last, and gives the last two
  /// of them: the one whose tile comes after the skip (`current`) and the one before (`previous`).
  static void pass_over(const FastForwardSkip& skip, TileCursor& cursor, TileWork& previous, TileWork& current);

 private:
  const AccelConfig& config_;
  bool timed_units_;
  std::deque<WalkedStage> stages_;  // the last 2 · kMaxPeriod + 2 at most
};

}  // namespace ecosim::accel
