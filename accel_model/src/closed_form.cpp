// The closed-form timing model of the accelerator (same plans as the SystemC model, no simulation kernel):
// one pass over each op's tiles through the pipeline recurrence of pipeline.hpp. It equals the SystemC model
// with config.prefetch_weights off and is a lower bound of it with prefetch on.
#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/replay.hpp"

namespace ecosim::accel {

ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows) {
  ReplayResult result = make_result(config, std::string(name(Engine::closed_form)));
  OpPlan plan;
  for (bool first = true; plans.next(plan); first = false) {
    StaticRow tally(plan, config);
    PipelineClock clock(config, config.prefetch_weights && !first);  // a lower bound: see pipeline.hpp
    PlanCursor tiles(plan);
    for (TileWork tile; tiles.next(tile);) {
      tally.add(tile);
      clock.add(tile);
    }
    OpRow row = tally.row();
    row.cycles = clock.cycles();
    charge_leakage(row, config);
    if (rows) rows->row(row);
    result.add(row);
  }
  return result;
}

}  // namespace ecosim::accel
