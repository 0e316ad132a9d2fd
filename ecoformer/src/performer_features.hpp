// Internal, CPU: Performer's positive random features, shared by the CPU reference (performer_cpu.cpp) and the
// decoder's recurrent state (decode_states.cpp), so a decode step featurises a token as the prefill did.
#pragma once
#include "eigen_views.hpp"

namespace ecosim::ecoformer::detail {

/// φ(x) = exp(ωᵀx̃ − ‖x̃‖²/2)·feature_scale with x̃ = x·input_scale, one row per row of x (ω is F×d).
RowMatrix positive_features(const ConstMatrixMap& x, const ConstMatrixMap& omega, float input_scale,
                            float feature_scale);

/// The scales of Performer's features at head width d and F features: x̃ = x/d^¼, and 1/√F.
struct FeatureScales {
  float input, feature;
};
FeatureScales feature_scales(std::uint64_t d, std::uint64_t f);

}  // namespace ecosim::ecoformer::detail
