// Internal: how the kernels (CPU and CUDA) report their work. Right after running a stage, a kernel passes
// that stage's records (ops_counter's stage emitters, attention_stages.hpp and hash_stages.hpp, in the exact
// convention) to its Reporter, which names them "attention.<name>" and keeps them; the caller delivers them
// to the OpSink once the kernel has returned, so that the sink's work (counting, writing a trace) stays
// outside every timed window. The analytic counter
// emits the same stages, so the instrumented counts equal emit_attention("attention", config without
// projections, Convention::exact) as long as each kernel reports each stage it runs once, in order.
#pragma once
#include <vector>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/ops_counter/attention_stages.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::ecoformer::detail {

class Reporter {
 public:
  explicit Reporter(OpSink& sink) : sink_(sink) {}
  /// Keeps the stage's records, in order, for deliver().
  void operator()(const stages::Stage& stage) const {
    for (const stages::StageRecord& r : stage) pending_.push_back(ops::prefixed(r.exact, kAttentionRecordPrefix));
  }
  /// Hands the kept records to the sink in the order they were reported (after the kernel's timing).
  void deliver() const {
    for (const OpRecord& r : pending_) sink_.record(r);
    pending_.clear();
  }

 private:
  OpSink& sink_;
  mutable std::vector<OpRecord> pending_;
};

}  // namespace ecosim::ecoformer::detail
