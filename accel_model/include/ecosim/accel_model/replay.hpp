// Replaying a trace on the accelerator: the ops' plans pulled one at a time (plan_source.hpp) and timed
// either with the SystemC model (one transaction per tile transfer or computation) or with the closed-form
// pipeline model. Memory stays constant: each op's row goes to a RowSink when the op finishes.
#pragma once

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/plan_source.hpp"
#include "ecosim/accel_model/result.hpp"
#include "ecosim/accel_model/timeline.hpp"

namespace ecosim::accel {

/// Closed form: per op, with l/c/s the load, compute and store cycles of tile i (T tiles),
///   cycles = l₀ + Σᵢ max(cᵢ, sᵢ₋₁ + lᵢ₊₁) + s_{T−1}
/// (double buffering: tile i computes while the DMA stores tile i−1 and loads tile i+1). Equal to the SystemC
/// model when every tile is compute-bound; otherwise an approximation (the DMA's order of loads and stores
/// differs). Ops run one after another; each op's row goes to `rows` when not null.
ReplayResult replay_closed_form(PlanSource& plans, const AccelConfig& config, RowSink* rows = nullptr);

/// The SystemC model: controller, DMA/DRAM, three SRAM buffers, fusion-unit array, vector unit and energy
/// ledger as SystemC modules. Each op's row goes to `rows`, and the units' busy intervals to `timeline`, when
/// not null (the caller finishes the timeline). Errors of the plan source are passed on once the ops already
/// started have finished.
ReplayResult replay_systemc(PlanSource& plans, const AccelConfig& config, RowSink* rows = nullptr,
                            TimelineWriter* timeline = nullptr);

}  // namespace ecosim::accel
