// The timing engines by name, replay() on the one chosen, and the work a replay will do (plan_work).
#include <array>
#include <string>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "fast_forward.hpp"

namespace ecosim::accel {

namespace {
constexpr std::array<std::string_view, 2> kEngineNames = {"systemc", "closed-form"};
}

std::string_view name(Engine e) { return kEngineNames[static_cast<std::size_t>(e)]; }

Engine parse_engine(std::string_view text) {
  for (std::size_t i = 0; i < kEngineNames.size(); ++i)
    if (kEngineNames[i] == text) return static_cast<Engine>(i);
  throw Error("unknown engine '" + std::string(text) + "' (valid: systemc, closed-form)");
}

ReplayResult replay(Engine engine, PlanSource& plans, const AccelConfig& config, RowSink* rows,
                    TimelineWriter* timeline, const ReplayProgress& progress) {
  if (engine == Engine::systemc) return replay_systemc(plans, config, rows, timeline, progress);
  if (timeline) throw Error("a timeline needs the systemc engine (the closed form times ops, not unit intervals)");
  return replay_closed_form(plans, config, rows, progress);
}

ReplayWork plan_work(PlanSource& plans) {
  ReplayWork work;
  WalkedTilesMemo walked;
  for (OpPlan plan; plans.next(plan);) {
    ++work.ops;
    work.tiles += plan.tile_count();
    work.walked_tiles += walked(plan, plans.config());
  }
  return work;
}

}  // namespace ecosim::accel
