// Replaying a trace on the accelerator: planning every operation, then timing the plans either with the
// SystemC model (one transaction per tile transfer or computation) or with the closed-form pipeline model.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/accel_model/result.hpp"
#include "ecosim/ops_counter/energy.hpp"

namespace ecosim::accel {

/// One busy interval of one unit, for the timeline (Chrome trace-event JSON).
struct TimelineEvent {
  Unit unit = Unit::array;
  bool store = false;  // DMA: a store (else a load)
  std::string op;
  std::uint64_t start_cycle = 0, cycles = 0;
};

/// Plans every operation (vector-unit energies from `tech`); with config.fuse_attention, each softmax-
/// attention group becomes one fused plan (fused_attention.hpp). Throws ecosim::Error for an op that cannot run.
std::vector<OpPlan> plan_ops(const std::vector<OpRecord>& ops, const AccelConfig& config, const TechTable& tech);

/// Closed form: per op, with l/c/s the load, compute and store cycles of tile i (T tiles),
///   cycles = l₀ + Σᵢ max(cᵢ, sᵢ₋₁ + lᵢ₊₁) + s_{T−1}
/// (double buffering: tile i computes while the DMA stores tile i−1 and loads tile i+1). Equal to the SystemC
/// model when every tile is compute-bound; otherwise an approximation (the DMA's order of loads and stores
/// differs). Ops run one after another.
ReplayResult replay_closed_form(const std::vector<OpPlan>& plans, const AccelConfig& config);

/// The SystemC model: controller, DMA/DRAM, three SRAM buffers, fusion-unit array, vector unit and energy
/// ledger as SystemC modules. Appends the units' busy intervals to `timeline` when it is not null.
ReplayResult replay_systemc(const std::vector<OpPlan>& plans, const AccelConfig& config,
                            std::vector<TimelineEvent>* timeline = nullptr);

/// Chrome trace-event JSON (opens in Perfetto), one track per unit, times in µs at the configured clock.
std::string timeline_json(const std::vector<TimelineEvent>& events, const AccelConfig& config);

}  // namespace ecosim::accel
