// The timing engines by name and those linked into this program (the closed form always; the SystemC engine
// when ecosim::accel_systemc registers it), replay() on the one chosen, and the work a replay will do (plan_work).
#include <array>
#include <string>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "fast_forward.hpp"

namespace ecosim::accel {

namespace {

constexpr std::array<std::string_view, 2> kEngineNames = {"systemc", "closed-form"};

ReplayResult closed_form_engine(PlanSource& plans, const AccelConfig& config, RowSink* rows, TimelineWriter* timeline,
                                const ReplayProgress& progress) {
  if (timeline) throw Error("a timeline needs the systemc engine (the closed form times ops, not unit intervals)");
  return replay_closed_form(plans, config, rows, progress);
}

/// The engines linked into this program, by Engine (a function's static: registration runs while the program
/// loads, in no set order with other files' initialisers).
std::array<EngineReplay, 2>& engines() {
  static std::array<EngineReplay, 2> linked = {nullptr, &closed_form_engine};
  return linked;
}

/// `engine`, or an error naming what this program lacks and what to use instead.
Engine available(Engine engine) {
  if (!engine_available(engine))
    throw Error("the " + std::string(name(engine)) +
                " engine is not linked into this program (the Python module leaves SystemC out: libsystemc sets up "
                "a simulation kernel as it loads); replay on closed-form, or with the ecosim command line");
  return engine;
}

}  // namespace

std::string_view name(Engine e) { return kEngineNames[static_cast<std::size_t>(e)]; }

Engine parse_engine(std::string_view text) {
  for (std::size_t i = 0; i < kEngineNames.size(); ++i)
    if (kEngineNames[i] == text) return available(static_cast<Engine>(i));
  throw Error("unknown engine '" + std::string(text) + "' (valid: systemc, closed-form)");
}

void register_engine(Engine engine, EngineReplay run) { engines()[static_cast<std::size_t>(engine)] = run; }

bool engine_available(Engine engine) { return engines()[static_cast<std::size_t>(engine)] != nullptr; }

Engine default_engine() { return engine_available(Engine::systemc) ? Engine::systemc : Engine::closed_form; }

ReplayResult replay(Engine engine, PlanSource& plans, const AccelConfig& config, RowSink* rows,
                    TimelineWriter* timeline, const ReplayProgress& progress) {
  return engines()[static_cast<std::size_t>(available(engine))](plans, config, rows, timeline, progress);
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
