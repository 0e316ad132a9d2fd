// The closed-form timing model of the accelerator (same plans as the SystemC model, no simulation kernel): the
// pipeline formula of pipeline.hpp over each op's tiles, costed class by class (TileRun::visit_classes) for an
// op of one run, tile by tile for an op of several runs (their seams join tiles of different runs).
#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/replay.hpp"

namespace ecosim::accel {

namespace {

/// The op's static counters and energy and its pipeline cycles, tile by tile.
OpRow walk_tiles(const OpPlan& plan, const AccelConfig& config) {
  StaticRow tally(plan, config);
  PipelineClock clock(config);
  PlanCursor tiles(plan);
  for (TileWork tile; tiles.next(tile);) {
    tally.add(tile);
    clock.add(tile);
  }
  OpRow row = tally.row();
  row.cycles = clock.cycles();
  return row;
}

/// The same, class by class, for a plan of one run.
OpRow cost_classes(const OpPlan& plan, const AccelConfig& config) {
  StaticRow tally(plan, config);
  ClassClock clock(config);
  plan.runs.front()->visit_classes(
      [&](const TileWork* before, const TileWork& at, const TileWork* after, std::uint64_t count) {
        tally.add(at, count);
        clock.add(before, at, after, count);
      });
  OpRow row = tally.row();
  row.cycles = clock.cycles();
  return row;
}

}  // namespace

OpRow closed_form_row(const OpPlan& plan, const AccelConfig& config, ClosedForm method) {
  OpRow row =
      method == ClosedForm::by_class && plan.runs.size() == 1 ? cost_classes(plan, config) : walk_tiles(plan, config);
  charge_leakage(row, config);
  return row;
}

ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows) {
  ReplayResult result = make_result(config, std::string(name(Engine::closed_form)));
  OpPlan plan;
  while (plans.next(plan)) {
    const OpRow row = closed_form_row(plan, config);
    if (rows) rows->row(row);
    result.add(row);
  }
  return result;
}

}  // namespace ecosim::accel
