// Internal: the kernels' input element type for a tensor dtype (throws ecosim::Error for non-float types),
// and the host-side minimum and maximum of a run of input elements.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ecosim/ops_counter/dtype.hpp"
#include "quant_math.hpp"

namespace ecosim::kernels {
quant::Input input_type(DType t);

struct MinMax {
  float lo, hi;
};
/// Min and max of elements [first, first + count) of `data` (count ≥ 1).
inline MinMax min_max(const void* data, quant::Input type, std::uint64_t first, std::uint64_t count) {
  MinMax m{quant::load(data, type, first), quant::load(data, type, first)};
  for (std::uint64_t i = 1; i < count; ++i) {
    const float v = quant::load(data, type, first + i);
    m.lo = std::min(m.lo, v);
    m.hi = std::max(m.hi, v);
  }
  return m;
}
}  // namespace ecosim::kernels
