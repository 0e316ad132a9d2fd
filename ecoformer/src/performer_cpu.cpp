// CPU reference of Performer FAVOR+: φ(x) = exp(ωᵀx̃ − ‖x̃‖²/2 − m)/√F with x̃ = x/d^¼ (positive orthogonal
// random features; m a stabiliser that cancels: a query row's largest exponent, the largest of its group's keys),
// out = φ(Q)(φ(K)ᵀV) / (φ(Q)·Σ_j φ(k_j)); causal (config.causal): the same with prefix sums, query t against
// Σ_{j≤t} φ(k_j)v_jᵀ and Σ_{j≤t} φ(k_j).
#include <cmath>

#include "baseline_kernels.hpp"
#include "performer_features.hpp"

namespace ecosim::ecoformer::detail {

RowMatrix feature_exponents(const ConstMatrixMap& x, const ConstMatrixMap& omega, float input_scale) {
  const RowMatrix scaled = x * input_scale;
  const Eigen::VectorXf half_sq_norm = scaled.rowwise().squaredNorm() * 0.5f;
  RowMatrix projected = scaled * omega.transpose();
  projected.colwise() -= half_sq_norm;
  return projected;
}

RowMatrix query_features(const ConstMatrixMap& x, const ConstMatrixMap& omega, FeatureScales scales) {
  RowMatrix e = feature_exponents(x, omega, scales.input);
  const Eigen::VectorXf row_max = e.rowwise().maxCoeff();
  e.colwise() -= row_max;
  return (e.array().exp() * scales.feature).matrix();
}

RowMatrix key_features(const RowMatrix& exponents, float stabiliser, float feature_scale) {
  return ((exponents.array() - stabiliser).exp() * feature_scale).matrix();
}

FeatureScales feature_scales(std::uint64_t d, std::uint64_t f) {
  return {static_cast<float>(std::pow(static_cast<double>(d), -0.25)),
          static_cast<float>(1.0 / std::sqrt(static_cast<double>(f)))};
}

Tensor performer_cpu(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                     const Reporter& report) {
  const std::uint64_t g = groups(in.q), d = c.head_dim, f = c.features;
  const std::vector<float>& omega_values = parameters.at("omega");
  const ConstMatrixMap omega(omega_values.data(), static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(d));
  const FeatureScales scales = feature_scales(d, f);
  std::vector<RowMatrix> phi_q(g), phi_k(g);
  for (std::uint64_t i = 0; i < g; ++i) phi_q[i] = query_features(group(in.q, i), omega, scales);
  report([=] { return stages::performer_features(c, "q"); });
  for (std::uint64_t i = 0; i < g; ++i) {
    const RowMatrix e = feature_exponents(group(in.k, i), omega, scales.input);
    phi_k[i] = key_features(e, e.maxCoeff(), scales.feature);
  }
  report([=] { return stages::performer_features(c, "k"); });
  Tensor out = output_like(in.q);
  for (std::uint64_t i = 0; c.causal && i < g; ++i) {  // prefix sums: query t sees keys 0..t
    RowMatrix kv = RowMatrix::Zero(static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(d));  // Σ φ(k_j) v_jᵀ
    Eigen::RowVectorXf k_sum = Eigen::RowVectorXf::Zero(static_cast<Eigen::Index>(f));           // Σ φ(k_j)
    const ConstMatrixMap v = group(in.v, i);
    auto o = group(out, i);
    for (Eigen::Index t = 0; t < v.rows(); ++t) {
      kv.noalias() += phi_k[i].row(t).transpose() * v.row(t);
      k_sum += phi_k[i].row(t);
      o.row(t) = (phi_q[i].row(t) * kv) * performer_row_scale(phi_q[i].row(t).dot(k_sum));
    }
  }
  for (std::uint64_t i = 0; !c.causal && i < g; ++i) {
    const RowMatrix kv = phi_k[i].transpose() * group(in.v, i);        // F×d
    const Eigen::RowVectorXf k_sum = phi_k[i].colwise().sum();         // F
    const RowMatrix numerator = phi_q[i] * kv;                         // n×d
    const Eigen::VectorXf denominator = phi_q[i] * k_sum.transpose();  // n
    group(out, i) = denominator.unaryExpr(&performer_row_scale).asDiagonal() * numerator;
  }
  report([=] { return stages::performer_mixing(c); });
  return out;
}

}  // namespace ecosim::ecoformer::detail
