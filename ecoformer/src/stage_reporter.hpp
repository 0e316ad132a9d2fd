// Internal: how the kernels (CPU and CUDA) report their work. Right after running a stage, a kernel passes
// that stage's records (ops_counter's stage emitters, attention_stages.hpp and hash_stages.hpp, in the exact
// convention) to its Reporter, which names them "attention.<name>" for the OpSink. The analytic counter
// emits the same stages, so the instrumented counts equal emit_attention("attention", config without
// projections, Convention::exact) as long as each kernel reports each stage it runs once, in order.
#pragma once
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/ops_counter/attention_stages.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::ecoformer::detail {

class Reporter {
 public:
  explicit Reporter(OpSink& sink) : sink_(sink) {}
  void operator()(const stages::Stage& stage) const {
    for (const stages::StageRecord& r : stage) sink_.record(ops::prefixed(r.exact, kAttentionRecordPrefix));
  }

 private:
  OpSink& sink_;
};

}  // namespace ecosim::ecoformer::detail
