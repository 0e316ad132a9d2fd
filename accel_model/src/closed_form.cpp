// The closed-form timing model of the accelerator (same plans as the SystemC model, no simulation kernel):
// one pass over each op's tiles, looking one tile ahead.
#include <algorithm>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows) {
  ReplayResult result = make_result(config, "closed-form");
  auto load = [&](const TileWork& t) { return dram_cycles(t.load_total_bits(), config); };
  auto store = [&](const TileWork& t) { return dram_cycles(t.store_bits, config); };
  OpPlan plan;
  while (plans.next(plan)) {
    StaticRow tally(plan, config);
    PlanCursor tiles(plan);
    TileWork tile, following;
    bool more = tiles.next(tile);
    std::uint64_t cycles = more ? load(tile) : 0, previous_store = 0;
    while (more) {
      tally.add(tile);
      more = tiles.next(following);
      const std::uint64_t compute = tile.unit == Unit::dma ? 0 : tile.compute_cycles;
      cycles = checked_add(cycles, std::max(compute, previous_store + (more ? load(following) : 0)));
      previous_store = store(tile);
      if (!more) cycles = checked_add(cycles, previous_store);
      tile = following;
    }
    OpRow row = tally.row();
    row.cycles = cycles;
    charge_leakage(row, config);
    if (rows) rows->row(row);
    result.add(row);
  }
  return result;
}

}  // namespace ecosim::accel
