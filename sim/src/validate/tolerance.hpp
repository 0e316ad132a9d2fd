// Internal: how close an attention kernel's output must be to its CPU reference. kernel_tolerance is the fp32
// slack of each variant's kernel (ties, exp and summation orders), shared by `validate --suite attention` (GPU
// against CPU) and `validate --output`; default_rtol adds the rounding of the output's own precision.
#pragma once
#include <cstdint>

#include "ecosim/ecoformer/npy.hpp"
#include "ecosim/ops_counter/attention.hpp"

namespace ecosim::cli {

/// The largest accepted max |out − ref| / max |ref| (and ‖out − ref‖_F / ‖ref‖_F) of an fp32 kernel.
double kernel_tolerance(AttentionVariant variant);

/// The unit roundoff u of a precision: 2⁻²⁴ (float32), 2⁻¹¹ (float16), 2⁻⁸ (bfloat16).
double unit_roundoff(ecoformer::NpyDtype precision);

/// L, the terms summed into one output value: N keys (or tokens) plus D of a dot product, plus F features
/// for Performer.
std::uint64_t reduction_length(const AttentionConfig& config);

/// The default relative tolerance of an output computed (or stored) in `precision`:
/// kernel_tolerance(variant) + u·(1 + √L) — the output's own rounding (u) and the typical growth of rounding
/// errors over a sum of L terms in that precision (u·√L).
double default_rtol(const AttentionConfig& config, ecoformer::NpyDtype precision);

}  // namespace ecosim::cli
