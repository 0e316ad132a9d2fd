// The closed-form timing model of the accelerator (same plans as the SystemC model, no simulation kernel):
// one pass over each op's tiles through the pipeline formula of pipeline.hpp.
#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/replay.hpp"

namespace ecosim::accel {

ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows) {
  ReplayResult result = make_result(config, std::string(name(Engine::closed_form)));
  OpPlan plan;
  while (plans.next(plan)) {
    StaticRow tally(plan, config);
    PipelineClock clock(config);
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
