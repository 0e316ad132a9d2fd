// Internal: the kernels' input element type for a tensor dtype (throws ecosim::Error for non-float types).
#pragma once
#include "ecosim/ops_counter/dtype.hpp"
#include "quant_math.hpp"

namespace ecosim::kernels {
quant::Input input_type(DType t);
}
