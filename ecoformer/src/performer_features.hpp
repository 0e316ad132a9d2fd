// Internal, CPU: Performer's positive random features, shared by the CPU reference (performer_cpu.cpp) and the
// decoder's recurrent state (decode_states.cpp), so a decode step featurises a token as the prefill did.
#pragma once
#include "eigen_views.hpp"
#include "performer_row_scale.hpp"

namespace ecosim::ecoformer::detail {

/// The scales of Performer's features at head width d and F features: x̃ = x/d^¼, and 1/√F.
struct FeatureScales {
  float input, feature;
};
FeatureScales feature_scales(std::uint64_t d, std::uint64_t f);

/// The features' exponents ωᵀx̃ − ‖x̃‖²/2 with x̃ = x·input_scale, one row per row of x (ω is F×d).
RowMatrix feature_exponents(const ConstMatrixMap& x, const ConstMatrixMap& omega, float input_scale);

/// Positive random features exp(e − m)·feature_scale of exponents e, stabilised as FAVOR+'s reference does so
/// that they neither overflow nor all underflow (0/0) when ‖x̃‖ is large: a query row's m is its own largest
/// exponent (its factor cancels in its ratio); the keys of one (batch, head) share one m (the factor cancels in
/// every query's ratio over them), their largest exponent.
RowMatrix query_features(const ConstMatrixMap& x, const ConstMatrixMap& omega, FeatureScales scales);
RowMatrix key_features(const RowMatrix& exponents, float stabiliser, float feature_scale);

}  // namespace ecosim::ecoformer::detail
