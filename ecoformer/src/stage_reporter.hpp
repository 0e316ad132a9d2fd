// Internal: how the kernels (CPU and CUDA) report their work. Right after running a stage, a kernel passes its
// Reporter a function that makes that stage's records (ops_counter's stage emitters, attention_stages.hpp and
// hash_stages.hpp, in the exact convention), e.g. report([=] { return stages::softmax_attention(c); }). The
// Reporter only keeps the function; deliver(), called once the kernel has returned, makes the records, names
// them "attention.<name>" and hands them to the OpSink. So neither building the records nor the sink's work
// (counting, writing a trace) falls inside a timed window. The analytic counter emits the same stages, so the
// instrumented counts equal emit_attention("attention", config without projections, Convention::exact) as
// long as each kernel reports each stage it runs once, in order.
#pragma once
#include <functional>
#include <utility>
#include <vector>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/ops_counter/attention_stages.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::ecoformer::detail {

class Reporter {
 public:
  using MakeStage = std::function<stages::Stage()>;
  explicit Reporter(OpSink& sink) : sink_(sink) {}
  /// Keeps the function that makes the stage's records (it must capture by value: it runs after the kernel
  /// has returned).
  void operator()(MakeStage make) const { pending_.push_back(std::move(make)); }
  /// Makes the kept stages' records and hands them to the sink, in the order reported.
  void deliver() const {
    for (const MakeStage& make : pending_)
      for (const stages::StageRecord& r : make()) sink_.record(ops::prefixed(r.exact, kAttentionRecordPrefix));
    pending_.clear();
  }

 private:
  OpSink& sink_;
  mutable std::vector<MakeStage> pending_;
};

}  // namespace ecosim::ecoformer::detail
