// Internal: the emitter the attention families' analytic counters emit their stages through (names prefixed
// with the layer's, the chosen convention applied).
#pragma once
#include <string>

#include "ecosim/ops_counter/attention_stages.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::detail {

class AttentionEmitter {
 public:
  AttentionEmitter(const std::string& prefix, Convention convention, OpSink& sink)
      : prefix_(prefix), convention_(convention), sink_(sink) {}

  /// Emits each record of `stage` as "<prefix>.<name>"; under the paper convention its operations are
  /// replaced by the stage's paper counts (its bytes are kept).
  void operator()(const stages::Stage& stage) const {
    for (const stages::StageRecord& r : stage)
      sink_.record(ops::in_convention(ops::prefixed(r.exact, prefix_), convention_, r.paper));
  }

 private:
  const std::string& prefix_;
  Convention convention_;
  OpSink& sink_;
};

void emit_softmax_attention(const AttentionConfig& c, const AttentionEmitter& emit);  // msa, sra, lsa, linformer
void emit_reformer(const AttentionConfig& c, const AttentionEmitter& emit);
void emit_performer(const AttentionConfig& c, const AttentionEmitter& emit);
void emit_hashed(const AttentionConfig& c, const AttentionEmitter& emit);  // EcoFormer family

}  // namespace ecosim::detail
