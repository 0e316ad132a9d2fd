// Internal: 1 / a Performer query's denominator, the one rule the CPU reference, the decode state and the CUDA
// kernels share (host and device).
#pragma once
#include <cfloat>
#include <cmath>

#include "ecosim/kernels/philox.hpp"  // ECOSIM_HD

namespace ecosim::ecoformer::detail {

/// 1 / a query's denominator φ(q)·Σφ(k) — NaN where it is below fp32's smallest normal number: its keys'
/// features are so far below the group's stabiliser (the inputs' scale so large) that the sums lost their
/// precision, and the row is reported as not computed rather than as a wrong number.
ECOSIM_HD float performer_row_scale(float denominator) { return denominator >= FLT_MIN ? 1.0f / denominator : NAN; }

}  // namespace ecosim::ecoformer::detail
