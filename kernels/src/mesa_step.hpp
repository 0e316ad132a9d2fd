// Internal: the end of one Mesa quantization step on either device — the running state takes the step's
// (α, β) and the caller's sink, when it gave one, receives the step's op record.
#pragma once
#include <utility>

#include "ecosim/kernels/mesa.hpp"

namespace ecosim::kernels::mesa {

inline Compressed finish_step(Compressed c, State& state, DType input, OpSink* sink) {
  state.alpha = c.alpha;
  state.beta = c.beta;
  if (sink) sink->record(quantize_record(c.layout, input));
  return c;
}

}  // namespace ecosim::kernels::mesa
