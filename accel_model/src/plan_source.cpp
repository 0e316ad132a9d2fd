// PlanSource: plans records as they are pulled, with a window of four records for fused attention groups.
#include "ecosim/accel_model/plan_source.hpp"

#include <span>

#include "ecosim/accel_model/fused_attention.hpp"

namespace ecosim::accel {

PlanSource::PlanSource(RecordSource& records, const AccelConfig& config, const TechTable& tech, PlanCheck check)
    : records_(records), config_(config), tech_(tech), check_(std::move(check)) {}

void PlanSource::fill(std::size_t count) {
  if (first_ >= kAttentionGroupRecords) {  // drop planned records now and then, not one by one
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

bool PlanSource::next(OpPlan& plan) {
  fill(config_.fuse_attention ? kAttentionGroupRecords : 1);
  const std::span<const OpRecord> waiting = std::span(window_).subspan(first_);
  if (waiting.empty()) return false;
  if (config_.fuse_attention) {
    if (std::optional<OpPlan> fused = plan_fused_attention(waiting, config_, tech_)) {
      plan = std::move(*fused);
      first_ += kAttentionGroupRecords;
      if (check_) check_(plan);
      return true;
    }
  }
  plan = plan_op(waiting.front(), config_, tech_);
  ++first_;
  if (check_) check_(plan);
  return true;
}

}  // namespace ecosim::accel
