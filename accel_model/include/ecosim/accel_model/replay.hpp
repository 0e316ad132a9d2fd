// Replaying a trace on the accelerator: the ops' plans pulled one at a time (plan_source.hpp) and timed
// either with the SystemC model (one transaction per tile transfer or computation) or with the closed-form
// pipeline model. Memory stays constant: each op's row goes to a RowSink when the op finishes.
#pragma once
#include <string_view>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/plan_source.hpp"
#include "ecosim/accel_model/result.hpp"
#include "ecosim/accel_model/timeline.hpp"

namespace ecosim::accel {

/// How the closed form sums an op's tiles: class by class (TileRun::visit_classes; an op of several runs is
/// walked), or tile by tile (the reference the classes must equal, and the order SystemC is fed in).
enum class ClosedForm : std::uint8_t { by_class, tile_by_tile };
/// One op's row in the closed form (leakage included).
OpRow closed_form_row(const OpPlan& plan, const AccelConfig& config, ClosedForm method = ClosedForm::by_class);

/// Closed form: per op, the cycles of the tile pipeline as the formula of pipeline.hpp gives them. The SystemC
/// model simulates the same pipeline and gives the same cycles. Ops run one after another; each op's row goes
/// to `rows` when not null.
ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows = nullptr);

/// The SystemC model: controller, DMA/DRAM, three SRAM buffers, fusion-unit array, vector unit and energy
/// ledger as SystemC modules. Each op's row goes to `rows`, and the units' busy intervals to `timeline`, when
/// not null (the caller finishes the timeline). Errors of the plan source are passed on once the ops already
/// started have finished.
ReplayResult replay_systemc(PlanSource& plans, const AccelConfig& config, RowSink* rows = nullptr,
                            TimelineWriter* timeline = nullptr);

/// The timing engine a replay runs on (both give identical cycles while SystemC models no dynamic effect).
enum class Engine : std::uint8_t { systemc, closed_form };
/// "systemc" or "closed-form" (the name ReplayResult::engine and every report carry).
std::string_view name(Engine e);
/// Parses an engine name; throws ecosim::Error listing the valid names.
Engine parse_engine(std::string_view text);
/// Replays on `engine`; a timeline is drawn by the SystemC engine only (throws ecosim::Error for the closed form).
ReplayResult replay(Engine engine, PlanSource& plans, const AccelConfig& config, RowSink* rows = nullptr,
                    TimelineWriter* timeline = nullptr);

}  // namespace ecosim::accel
