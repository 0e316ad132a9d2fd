// The closed-form timing model of the accelerator (same plans as the SystemC model, no simulation kernel): the
// pipeline recurrence of pipeline.hpp over each op's tiles, costed class by class (TileRun::visit_classes) for
// an op of one run whose tiles compute one after another, stretch by stretch (TileRun::stretches: the
// recurrence, periods of repetitions skipped) for a run whose tiles may overlap, tile by tile otherwise (the
// seams of several runs join tiles of different runs). It equals the SystemC model with
// config.prefetch_weights off and is a lower bound of it with prefetch on.
#include "ecosim/accel_model/pipeline.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

namespace {

/// The op's static counters and energy and its pipeline cycles, tile by tile.
OpRow walk_tiles(const OpPlan& plan, const AccelConfig& config, bool weights_prefetched) {
  StaticRow tally(plan, config);
  PipelineClock clock(config, weights_prefetched);
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
OpRow cost_classes(const OpPlan& plan, const AccelConfig& config, bool weights_prefetched) {
  StaticRow tally(plan, config);
  ClassClock clock(config, weights_prefetched);
  plan.runs.front()->visit_classes(
      [&](const TileWork* before, const TileWork& at, const TileWork* after, std::uint64_t count) {
        tally.add(at, count);
        clock.add(before, at, after, count);
      });
  OpRow row = tally.row();
  row.cycles = clock.cycles();
  return row;
}

/// Adds the tiles of `stretch` to `tally`, each `times` times its repetitions.
void tally_stretch(StaticRow& tally, const TileStretch& stretch, std::uint64_t times) {
  const std::uint64_t count = checked_mul(times, stretch.repeat);
  for (const TileWork& tile : stretch.tiles) tally.add(tile, count);
  for (const TileStretch& part : stretch.parts) tally_stretch(tally, part, count);
}

/// The same, stretch by stretch (TileRun::stretches), for a plan of one run.
OpRow cost_stretches(const OpPlan& plan, const TileStretch& stretch, const AccelConfig& config,
                     bool weights_prefetched) {
  StaticRow tally(plan, config);
  tally_stretch(tally, stretch, 1);
  PipelineClock clock(config, weights_prefetched);
  clock.add(stretch);
  OpRow row = tally.row();
  row.cycles = clock.cycles();
  return row;
}

}  // namespace

OpRow closed_form_row(const OpPlan& plan, const AccelConfig& config, bool weights_prefetched, ClosedForm method) {
  const bool one_run = method == ClosedForm::by_class && plan.runs.size() == 1;
  const std::optional<TileStretch> stretch = one_run ? plan.runs.front()->stretches() : std::nullopt;
  const bool by_class = one_run && !(config.overlap_units && plan.runs.front()->has_tiles_beside_previous());
  OpRow row = stretch    ? cost_stretches(plan, *stretch, config, weights_prefetched)
              : by_class ? cost_classes(plan, config, weights_prefetched)
                         : walk_tiles(plan, config, weights_prefetched);
  charge_leakage(row, config);
  return row;
}

ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows,
                                const ReplayProgress& progress) {
  ReplayResult result = make_result(config, std::string(name(Engine::closed_form)));
  OpPlan plan;
  ReplayWork done;
  for (bool first = true; plans.next(plan); first = false) {
    const OpRow row = closed_form_row(plan, config, config.prefetch_weights && !first);  // see pipeline.hpp
    if (rows) rows->row(row);
    result.add(row);
    ++done.ops;
    done.tiles += row.tiles;
    if (progress) progress(done);
  }
  return result;
}

}  // namespace ecosim::accel
