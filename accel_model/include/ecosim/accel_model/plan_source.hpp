// PlanSource: the operations of a record source planned one at a time, so a replay holds one op's plan (and
// at most a fusion group and one record more), whatever the trace's length.
#pragma once
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/accel_model/tiling.hpp"
#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/record_source.hpp"

namespace ecosim::accel {

class PlanSource {
 public:
  /// Called with each plan before it is handed out; throws to refuse it (e.g. a work budget).
  using PlanCheck = std::function<void(const OpPlan&)>;

  /// `records`, `config` and `tech` (vector-unit energies) must outlive the source. `convention` is how the
  /// records were counted: only exact counts are the work the accelerator does (paper counts leave out most
  /// vector work), so anything else is refused with an ecosim::Error naming `origin` (the trace file) and
  /// the fix. `float_storage` is the trace header's: how its float tensors are held in DRAM (plan_op()).
  PlanSource(RecordSource& records, Convention convention, std::string_view origin, const AccelConfig& config,
             const TechTable& tech, PlanCheck check = {},
             trace::FloatStorage float_storage = trace::FloatStorage::operand);
  /// The next op's plan: one record's, or with config.fuse_attention one softmax attention's, the records of
  /// one fusion group (fused_attention.hpp) — unless its fused schedule would move more DRAM bits than the
  /// group's records planned one by one: then those plans, each mapping starting "unfused: fusing <group>
  /// would move ...". False when the records are exhausted. Throws ecosim::Error for an
  /// op that cannot run, and passes on the record source's errors.
  bool next(OpPlan& plan);
  const AccelConfig& config() const { return config_; }

 private:
  /// Reads records until `count` are waiting (fewer at the end of the source).
  void fill(std::size_t count);
  /// The records of a softmax attention group starting `group`, each planned alone (a causal one's GEMMs
  /// skipping the masked tiles), and passed.
  std::vector<OpPlan> plan_group_unfused(std::span<const OpRecord> group);

  RecordSource& records_;
  const AccelConfig& config_;
  TilingMemo tilings_{config_};  // models repeat their GEMM shapes
  const TechTable& tech_;
  FusedTilingMemo fused_tilings_{config_, tech_};  // and their attention shapes
  PlanCheck check_;
  trace::FloatStorage float_storage_;
  std::vector<OpRecord> window_;  // records read, not yet planned: window_[first_] onwards
  std::size_t first_ = 0;
  bool exhausted_ = false;
  std::vector<OpPlan> planned_;  // plans made, to hand out in order (a group's records, planned unfused)
  std::string previous_group_;   // the group of the record planned last: fusion is tried where a group starts
};

}  // namespace ecosim::accel
