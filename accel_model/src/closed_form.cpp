// The closed-form timing model of the accelerator (same plans as the SystemC model, no simulation kernel): the
// pipeline recurrence of pipeline.hpp over each op's tiles, costed class by class (TileRun::visit_classes; the
// seams of several runs staged from their end tiles) for an op whose tiles compute one after another, stretch by
// stretch (TileRun::stretches: the recurrence, periods of repetitions skipped) for a run whose tiles may overlap,
// tile by tile otherwise. It equals the SystemC model with config.prefetch_weights off; with prefetch on it
// assumes a prefetch wherever the SystemC model's may fit (prefetch_fits), a lower bound of it.
#include <algorithm>
#include <optional>
#include <vector>

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

/// The same, class by class, run by run: a run's middle classes cost as in ClassClock; its first and last
/// tiles are staged beside the tiles of the runs before and after it (the seams), as the walk stages them.
OpRow cost_classes(const OpPlan& plan, const AccelConfig& config, bool weights_prefetched) {
  struct Ends {  // a run's first tile and the one after it, its last tile and the one before it (none: one tile)
    TileWork first, last;
    std::optional<TileWork> after_first, before_last;
  };
  StaticRow tally(plan, config);
  std::vector<Ends> ends(plan.runs.size());
  std::uint64_t cycles = 0;
  for (std::size_t r = 0; r < plan.runs.size(); ++r)
    plan.runs[r]->visit_classes(
        [&](const TileWork* before, const TileWork& at, const TileWork* after, std::uint64_t count) {
          tally.add(at, count);
          if (before && after)
            cycles = checked_add(cycles, checked_mul(stage_cycles(unit_cycles(at), store_cycles(*before, config),
                                                                  load_cycles(*after, config)),
                                                     count));
          if (!before) ends[r].first = at, ends[r].after_first = after ? std::optional(*after) : std::nullopt;
          if (!after) ends[r].last = at, ends[r].before_last = before ? std::optional(*before) : std::nullopt;
        });
  cycles = checked_add(cycles, first_load_cycles(ends.front().first, config, weights_prefetched));  // l₀
  for (std::size_t r = 0; r < ends.size(); ++r) {
    const std::uint64_t store_before = r > 0 ? store_cycles(ends[r - 1].last, config) : 0;
    const std::uint64_t load_after = r + 1 < ends.size() ? load_cycles(ends[r + 1].first, config) : 0;
    const Ends& e = ends[r];
    cycles = checked_add(cycles, stage_cycles(unit_cycles(e.first), store_before,
                                              e.after_first ? load_cycles(*e.after_first, config) : load_after));
    if (e.before_last)
      cycles = checked_add(cycles, stage_cycles(unit_cycles(e.last), store_cycles(*e.before_last, config), load_after));
  }
  OpRow row = tally.row();
  row.cycles = checked_add(cycles, store_cycles(ends.back().last, config));  // s_{T−1}
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
  const bool by_class = method == ClosedForm::by_class && !plan.runs.empty() &&
                        std::none_of(plan.runs.begin(), plan.runs.end(), [&](const auto& run) {
                          return config.overlap_units && run->has_tiles_beside_previous();
                        });
  OpRow row = stretch    ? cost_stretches(plan, *stretch, config, weights_prefetched)
              : by_class ? cost_classes(plan, config, weights_prefetched)
                         : walk_tiles(plan, config, weights_prefetched);
  charge_leakage(row, config);
  return row;
}

/// A plan's first tile, its last tile and the one before that (none: a single tile).
struct PlanEnds {
  TileWork first, last;
  std::optional<TileWork> before_last;
};
PlanEnds plan_ends(const OpPlan& plan) {
  PlanEnds e;
  std::optional<TileWork> previous_run_last;
  for (std::size_t r = 0; r < plan.runs.size(); ++r)
    plan.runs[r]->visit_classes([&](const TileWork* before, const TileWork& at, const TileWork* after, std::uint64_t) {
      if (!before && r == 0) e.first = at;
      if (!after) {
        e.last = at;
        e.before_last = before ? std::optional(*before) : previous_run_last;
        previous_run_last = at;  // the tile before the next run's first
      }
    });
  return e;
}

/// Whether the SystemC model may prefetch the next op's first weight tile (of `weight_bits`) during the op
/// ending with `ends`: its DMA starts the prefetch once it has stored the tile before the last, and only if the
/// load ends before the last tile computes (systemc_controller.hpp, prefetch). Where it may, the closed form
/// assumes it does (a lower bound); where it cannot, it does not.
bool prefetch_fits(const PlanEnds& ends, std::uint64_t weight_bits, const AccelConfig& config) {
  const std::uint64_t store_before = ends.before_last ? store_cycles(*ends.before_last, config) : 0;
  return checked_add(store_before, dram_cycles(weight_bits, config)) <= unit_cycles(ends.last);
}

ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows,
                                const ReplayProgress& progress) {
  ReplayResult result = make_result(config, std::string(name(Engine::closed_form)));
  OpPlan plan;
  ReplayWork done;
  std::optional<PlanEnds> previous;  // the op before's ends, with prefetch on
  for (bool first = true; plans.next(plan); first = false) {
    bool prefetched = false;
    if (config.prefetch_weights) {
      const PlanEnds ends = plan_ends(plan);
      prefetched = previous && prefetch_fits(*previous, ends.first.load_bits[std::size_t(Buffer::weights)], config);
      previous = ends;
    }
    const OpRow row = closed_form_row(plan, config, prefetched && !first);  // see pipeline.hpp
    if (rows) rows->row(row);
    result.add(row);
    ++done.ops;
    done.tiles += row.tiles;
    if (progress) progress(done);
  }
  return result;
}

}  // namespace ecosim::accel
