// Internal: the emitter the attention variants use to name records and apply the paper convention.
#pragma once
#include <string>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::detail {

class AttentionEmitter {
 public:
  AttentionEmitter(const std::string& prefix, Convention convention, OpSink& sink)
      : prefix_(prefix), convention_(convention), sink_(sink) {}

  /// Emits r (exact counts) as "<prefix>.<r.name>"; under the paper convention its operations are
  /// replaced by `paper` (its bytes are kept).
  void operator()(OpRecord r, const OpCounts& paper) const {
    r.name = prefix_ + "." + r.name;
    if (!r.group.empty()) r.group = prefix_ + "." + r.group;
    sink_.record(ops::in_convention(std::move(r), convention_, paper));
  }

 private:
  const std::string& prefix_;
  Convention convention_;
  OpSink& sink_;
};

/// n fp32 multiplications (the paper convention's scaling terms).
inline OpCounts muls(std::uint64_t n) { return OpCounts{}.add(OpKind::mul, DType::fp32, n); }
inline OpCounts adds(std::uint64_t n) { return OpCounts{}.add(OpKind::add, DType::fp32, n); }

void emit_softmax_attention(const AttentionConfig& c, const AttentionEmitter& emit);  // msa, linformer
void emit_reformer(const AttentionConfig& c, const AttentionEmitter& emit);
void emit_performer(const AttentionConfig& c, const AttentionEmitter& emit);
void emit_hashed(const AttentionConfig& c, const AttentionEmitter& emit);  // EcoFormer family

}  // namespace ecosim::detail
