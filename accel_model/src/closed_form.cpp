// The closed-form timing model of the accelerator (same plans as the SystemC model, no simulation kernel).
#include <algorithm>
#include <span>

#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

std::vector<OpPlan> plan_ops(const std::vector<OpRecord>& ops, const AccelConfig& config, const TechTable& tech) {
  std::vector<OpPlan> plans;
  plans.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size();) {
    if (config.fuse_attention) {
      if (std::optional<OpPlan> fused = plan_fused_attention(std::span(ops).subspan(i), config, tech)) {
        plans.push_back(std::move(*fused));
        i += 4;
        continue;
      }
    }
    plans.push_back(plan_op(ops[i++], config, tech));
  }
  return plans;
}

ReplayResult replay_closed_form(const std::vector<OpPlan>& plans, const AccelConfig& config) {
  ReplayResult result = make_result(config, "closed-form");
  for (const OpPlan& plan : plans) {
    OpRow row = static_row(plan, config);
    const auto& t = plan.tiles;
    auto load = [&](std::size_t i) { return i < t.size() ? dram_cycles(t[i].load_total_bits(), config) : 0; };
    auto store = [&](std::size_t i) { return dram_cycles(t[i].store_bits, config); };
    std::uint64_t cycles = load(0) + store(t.size() - 1);
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::uint64_t compute = t[i].unit == Unit::dma ? 0 : t[i].compute_cycles;
      cycles = checked_add(cycles, std::max(compute, (i ? store(i - 1) : 0) + load(i + 1)));
    }
    row.cycles = cycles;
    result.add(std::move(row));
  }
  return result;
}

}  // namespace ecosim::accel
