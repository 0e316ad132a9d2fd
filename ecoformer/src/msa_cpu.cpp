// CPU reference of softmax attention (MSA, 1/√d scaling) in the online form: blocks of queries against
// blocks of keys with a running row maximum and sum, so memory stays O(block²) at any sequence length; causal
// (config.causal) with the later keys masked and the key blocks past a query block's last key skipped.
#include <algorithm>
#include <cmath>
#include <limits>

#include "baseline_kernels.hpp"
#include "eigen_views.hpp"

namespace ecosim::ecoformer::detail {

namespace {
constexpr Eigen::Index kQueryBlock = 64, kKeyBlock = 256;
}

void softmax_attention_cpu(const float* q, const float* k, const float* v, float* out, std::uint64_t n,
                           std::uint64_t keys, std::uint64_t d, bool causal) {
  const auto rows = static_cast<Eigen::Index>(n), cols = static_cast<Eigen::Index>(d);
  const auto key_rows = static_cast<Eigen::Index>(keys);
  const ConstMatrixMap Q(q, rows, cols), K(k, key_rows, cols), V(v, key_rows, cols);
  MatrixMap O(out, rows, cols);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (Eigen::Index q0 = 0; q0 < rows; q0 += kQueryBlock) {
    const Eigen::Index qn = std::min(kQueryBlock, rows - q0);
    Eigen::VectorXf row_max = Eigen::VectorXf::Constant(qn, -std::numeric_limits<float>::infinity());
    Eigen::VectorXf row_sum = Eigen::VectorXf::Zero(qn);
    RowMatrix acc = RowMatrix::Zero(qn, cols);
    const Eigen::Index shift = key_rows - rows;                        // query i sees keys ≤ shift + i when causal
    const Eigen::Index visible = causal ? shift + q0 + qn : key_rows;  // keys any query of the block sees
    for (Eigen::Index k0 = 0; k0 < visible; k0 += kKeyBlock) {
      const Eigen::Index kn = std::min(kKeyBlock, visible - k0);
      RowMatrix s = Q.middleRows(q0, qn) * K.middleRows(k0, kn).transpose();
      s *= scale;
      if (causal)  // every row keeps key 0 ≤ shift + i, so no row is all −∞
        for (Eigen::Index r = 0; r < qn; ++r)
          for (Eigen::Index c = std::max<Eigen::Index>(0, shift + q0 + r + 1 - k0); c < kn; ++c)
            s(r, c) = -std::numeric_limits<float>::infinity();
      const Eigen::VectorXf new_max = row_max.cwiseMax(s.rowwise().maxCoeff());
      const Eigen::VectorXf rescale = (row_max - new_max).array().exp().matrix();  // exp(−∞) = 0 at the start
      s = (s.colwise() - new_max).array().exp().matrix();
      row_sum = row_sum.cwiseProduct(rescale) + s.rowwise().sum();
      acc = rescale.asDiagonal() * acc;
      acc.noalias() += s * V.middleRows(k0, kn);
      row_max = new_max;
    }
    O.middleRows(q0, qn) = row_sum.cwiseInverse().asDiagonal() * acc;
  }
}

Tensor msa_cpu(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters&, const Reporter& report) {
  Tensor out = output_like(in.q);
  const std::uint64_t g = groups(in.q), n = c.seq, d = c.head_dim;
  for (std::uint64_t i = 0; i < g; ++i)
    softmax_attention_cpu(&in.q.data[i * n * d], &in.k.data[i * n * d], &in.v.data[i * n * d], &out.data[i * n * d], n,
                          n, d, c.causal);
  report([=] { return stages::softmax_attention(c); });
  return out;
}

}  // namespace ecosim::ecoformer::detail
