// The SystemC engine's fast-forward (fast_forward.hpp): when a walk may pass over periods, and the tiles a
// replay walks.
#include "fast_forward.hpp"

#include <fmt/core.h>
#include <stdexcept>

#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

bool FastForward::enabled(const AccelConfig& config) { return config.fast_forward && !config.memory_bound; }

std::optional<FastForwardSkip> FastForward::stage(const TileWork& tile, std::optional<std::uint64_t> start_cycle,
                                                  const TileCursor& cursor) {
  stages_.push_back({tile, start_cycle.value_or(0)});
  if (stages_.size() > 2 * kMaxPeriod + 2) stages_.pop_front();
  const RepeatAhead ahead = cursor.repeat_ahead(kMaxPeriod);
  const std::uint64_t p = ahead.period;
  if (ahead.periods < kMinPeriods || stages_.size() < 2 * p + 2) return std::nullopt;
  // Stages σ − 2p − 1 … σ walked: each tile alike the one a period before it from σ − p − 1 on (the stages
  // σ − p … σ − 1 then repeat their tiles' neighbours too); tile σ (so σ − p and σ − 2p) not beside the one before.
  if (overlaps_previous(back(0).tile, config_)) return std::nullopt;
  for (std::size_t j = 0; timed_units_ && j <= 2 * p + 1; ++j)
    if (overlaps_previous(back(j).tile, config_)) return std::nullopt;
  for (std::size_t j = 0; j <= p + 1; ++j)
    if (!alike(back(j).tile, back(j + p).tile)) return std::nullopt;
  const std::uint64_t period_cycles = back(0).start_cycle - back(p).start_cycle;
  if (start_cycle && back(p).start_cycle - back(2 * p).start_cycle != period_cycles) return std::nullopt;
  return FastForwardSkip{p, ahead.periods, period_cycles};
}

void FastForward::pass_over(const FastForwardSkip& skip, TileCursor& cursor, TileWork& previous, TileWork& current) {
  // Whole periods but the last (p = 1: but the last two stages), then the rest tile by tile.
  const std::uint64_t made = skip.period == 1 ? 2 : skip.period;
  cursor.skip(skip.period, skip.periods - made / skip.period);
  for (std::uint64_t i = 0; i < made; ++i) {
    previous = current;
    if (!cursor.next(current)) throw std::logic_error("FastForward::pass_over: the repetition ended early");
  }
}

std::uint64_t walked_tiles(const OpPlan& plan, const AccelConfig& config) {
  if (!FastForward::enabled(config)) return plan.tile_count();
  PlanCursor cursor(plan);
  FastForward forward(config);
  std::uint64_t walked = 0;
  TileWork previous, current;
  for (bool more = cursor.next(current); more; more = cursor.next(current)) {
    walked = checked_add(walked, 1);
    if (const auto skip = forward.stage(current, std::nullopt, cursor)) {
      FastForward::pass_over(*skip, cursor, previous, current);  // tiles σ + 1 … σ + K, loaded at once
      forward.clear();
    }
  }
  return walked;
}

std::uint64_t WalkedTilesMemo::operator()(const OpPlan& plan, const AccelConfig& config) {
  const OpRow row = closed_form_row(plan, config);  // by class: a small part of a walk's cost
  std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}", name(plan.kind), plan.mapping, row.tiles, row.dram_bits,
                                row.cycles, row.array_cycles, row.vector_cycles);
  for (const auto& run : plan.runs)
    for (const TensorShape& t : run->tensors())
      key += fmt::format("|{}x{}x{}x{}:{}", t.dims[0], t.dims[1], t.dims[2], t.dims[3], t.element_bits);
  if (const auto it = known_.find(key); it != known_.end()) return it->second;
  if (known_.size() >= kCapacity) known_.clear();
  return known_[key] = walked_tiles(plan, config);
}

}  // namespace ecosim::accel
