// Test helpers shared by the ONNX swap tests: an imported model's total counts (optionally with its attention
// swapped) and a swap to a variant at its default parameters.
#pragma once
#include <optional>

#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"

namespace ecosim::test {

inline OpCounts onnx_total(const OnnxModel& m, Convention convention,
                           const std::optional<AttentionConfig>& swap = {}) {
  OpCounter counter;
  for (const Layer& l : onnx_layers(m, swap)) emit(l, convention, counter);
  return counter.total();
}

inline AttentionConfig swap_to(AttentionVariant variant) {
  AttentionConfig a;
  a.variant = variant;
  return a;
}

}  // namespace ecosim::test
