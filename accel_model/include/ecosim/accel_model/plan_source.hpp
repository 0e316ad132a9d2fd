// PlanSource: the operations of a record source planned one at a time, so a replay holds one op's plan (and
// at most four records), whatever the trace's length.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/record_source.hpp"

namespace ecosim::accel {

class PlanSource {
 public:
  /// Called with each plan before it is handed out; throws to refuse it (e.g. a work budget).
  using PlanCheck = std::function<void(const OpPlan&)>;

  /// `records`, `config` and `tech` (vector-unit energies) must outlive the source.
  PlanSource(RecordSource& records, const AccelConfig& config, const TechTable& tech, PlanCheck check = {});
  /// The next op's plan: one record's, or with config.fuse_attention one softmax-attention group's
  /// (fused_attention.hpp; kAttentionGroupRecords records). False when the records are exhausted. Throws ecosim::Error
  /// for an op that cannot run, and passes on the record source's errors.
  bool next(OpPlan& plan);

 private:
  /// Reads records until `count` are waiting (fewer at the end of the source).
  void fill(std::size_t count);

  RecordSource& records_;
  const AccelConfig& config_;
  const TechTable& tech_;
  PlanCheck check_;
  std::vector<OpRecord> window_;  // records read, not yet planned: window_[first_] onwards
  std::size_t first_ = 0;
  bool exhausted_ = false;
};

}  // namespace ecosim::accel
