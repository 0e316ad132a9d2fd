// PlanSource: plans records as they are pulled, with a window of a whole group and one record where a fusion group
// starts; a group whose fused schedule would move more DRAM bits, or cost more energy (both by the closed form), than
// its ops unfused is handed out unfused.
#include "ecosim/accel_model/plan_source.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <span>
#include <vector>

#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::accel {

PlanSource::PlanSource(RecordSource& records, Convention convention, std::string_view origin, const AccelConfig& config,
                       const TechTable& tech, PlanCheck check, trace::FloatStorage float_storage)
    : records_(records), config_(config), tech_(tech), check_(std::move(check)), float_storage_(float_storage) {
  if (convention != Convention::exact)
    throw Error(std::string(origin) + ": replay needs exact-convention counts; this trace is '" +
                std::string(name(convention)) + "' (write it with: ecosim trace ... --convention exact)");
}

void PlanSource::fill(std::size_t count) {
  if (first_ >= kMaxAttentionGroupRecords) {  // drop planned records now and then, not one by one
    window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(first_));
    first_ = 0;
  }
  while (!exhausted_ && window_.size() - first_ < count) {
    OpRecord op;
    if (records_.next(op))
      window_.push_back(std::move(op));
    else
      exhausted_ = true;
  }
}

namespace {

/// Where the keys lie in each record of a causal softmax attention group starting `records` (its scores along n,
/// its context along k, none in between); none for any other records.
std::vector<CausalKeys> causal_keys(std::span<const OpRecord> records, const AccelConfig& config) {
  std::vector<CausalKeys> keys(std::max<std::size_t>(group_records(records), 1), CausalKeys::none);
  const std::optional<AttentionShape> shape = attention_group(records, config);
  if (shape && shape->causal) keys.front() = CausalKeys::along_n, keys.back() = CausalKeys::along_k;
  return keys;
}

}  // namespace

std::vector<OpPlan> PlanSource::plan_group_unfused(std::span<const OpRecord> group) {
  const std::vector<CausalKeys> keys = causal_keys(group, config_);
  std::vector<OpPlan> plans;
  for (std::size_t i = 0; i < keys.size(); ++i)
    plans.push_back(plan_op(group[i], config_, tech_, &tilings_, float_storage_, keys[i]));
  first_ += keys.size();
  return plans;
}

bool PlanSource::next(OpPlan& plan) {
  if (planned_.empty()) {
    fill(1);
    if (first_ == window_.size()) return false;
    const bool group_starts = !window_[first_].group.empty() && window_[first_].group != previous_group_;
    previous_group_ = window_[first_].group;
    if (group_starts) fill(kMaxAttentionGroupRecords + 1);  // one more: the group must end within the window
    const std::span<const OpRecord> waiting = std::span(window_).subspan(first_);
    // A fused attention's GEMMs hold floats at the operand width: under `recorded` storage its records are
    // planned one by one, where plan_op() refuses them.
    if (config_.fuse_attention && group_starts && float_storage_ == trace::FloatStorage::operand)
      if (std::optional<FusedPlan> fused = plan_fused_attention(waiting, config_, tech_, &fused_tilings_)) {
        std::vector<OpPlan> unfused = plan_group_unfused(waiting);
        std::uint64_t unfused_bits = 0;
        double unfused_pj = 0;
        for (const OpPlan& p : unfused) {
          unfused_bits = checked_add(unfused_bits, dram_bits(p));
          unfused_pj += closed_form_row(p, config_).energy.total_pj();
        }
        if (fused->tiling.dram_bits <= unfused_bits && fused->tiling.energy_pj <= unfused_pj) {
          planned_.push_back(std::move(fused->plan));
        } else {  // fusion would move more or cost more: the group runs unfused, and its rows say so
          const std::string note =
              fused->tiling.dram_bits > unfused_bits
                  ? fmt::format("unfused: fusing {} would move {} DRAM bits ({}), more than these {} ops' {}; ",
                                waiting[0].group, fused->tiling.dram_bits, fused->tiling.describe(), unfused.size(),
                                unfused_bits)
                  : fmt::format("unfused: fusing {} would cost {:.6g} pJ ({}), more than these {} ops' {:.6g}; ",
                                waiting[0].group, fused->tiling.energy_pj, fused->tiling.describe(), unfused.size(),
                                unfused_pj);
          for (OpPlan& p : unfused) p.mapping = note + p.mapping;
          planned_ = std::move(unfused);
        }
      }
    // a mask or bias operand (an ONNX block's) the fused mapping does not stream: unfused, and its rows say so
    if (planned_.empty() && config_.fuse_attention && group_starts && attention_group(waiting, config_))
      if (const std::uint64_t operand = score_operand_bytes(waiting)) {
        const std::string note =
            fmt::format("unfused: {} adds a mask or bias to its scores, {} bytes the fused mapping does not read; ",
                        waiting[0].group, operand);
        planned_ = plan_group_unfused(waiting);
        for (OpPlan& p : planned_) p.mapping = note + p.mapping;
      }
    // a causal attention's GEMMs skip the masked tiles (plan_op)
    if (planned_.empty() && group_starts && causal_keys(waiting, config_).front() != CausalKeys::none)
      planned_ = plan_group_unfused(waiting);
    if (planned_.empty()) planned_.push_back(plan_op(window_[first_++], config_, tech_, &tilings_, float_storage_));
  }
  plan = std::move(planned_.front());
  planned_.erase(planned_.begin());
  if (check_) check_(plan);
  return true;
}

}  // namespace ecosim::accel
