// Test helpers shared by the ONNX swap tests: an imported model's total counts (optionally with its attention
// swapped), its swapped block and one layer's counts, and a swap to a variant at its default parameters.
#pragma once
#include <optional>
#include <stdexcept>
#include <variant>
#include <vector>

#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"

namespace ecosim::test {

inline OpCounts onnx_total(const OnnxModel& m, Convention convention, const std::optional<AttentionConfig>& swap = {}) {
  OpCounter counter;
  for (const Layer& l : onnx_layers(m, swap)) emit(l, convention, counter);
  return counter.total();
}

/// The one swapped attention block of `layers` (an AttentionConfig), wherever the graph's other layers put it.
inline const Layer& swapped_block(const std::vector<Layer>& layers) {
  for (const Layer& l : layers)
    if (std::holds_alternative<AttentionConfig>(l.op)) return l;
  throw std::logic_error("no swapped attention block");
}

/// The counts of one layer alone.
inline OpCounts layer_total(const Layer& layer, Convention convention) {
  OpCounter counter;
  emit(layer, convention, counter);
  return counter.total();
}

inline AttentionConfig swap_to(AttentionVariant variant) {
  AttentionConfig a;
  a.variant = variant;
  return a;
}

}  // namespace ecosim::test
