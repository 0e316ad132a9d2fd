// CPU reference of Linformer: keys and values projected along the sequence to k rows by one random E
// (k×n, shared by K, V and every group), then softmax attention over the k projected keys.
#include "baseline_kernels.hpp"
#include "eigen_views.hpp"

namespace ecosim::ecoformer::detail {

Tensor linformer_cpu(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                     const Reporter& report) {
  const std::uint64_t g = groups(in.q), n = c.seq, d = c.head_dim, k = c.proj_k;
  const std::vector<float>& e_values = parameters.at("length_projection");
  const ConstMatrixMap E(e_values.data(), static_cast<Eigen::Index>(k), static_cast<Eigen::Index>(n));
  std::vector<RowMatrix> keys(g), values(g);
  for (std::uint64_t i = 0; i < g; ++i) keys[i] = E * group(in.k, i);
  for (std::uint64_t i = 0; i < g; ++i) values[i] = E * group(in.v, i);
  report([=] { return stages::linformer_projections(c); });
  Tensor out = output_like(in.q);
  for (std::uint64_t i = 0; i < g; ++i)
    softmax_attention_cpu(&in.q.data[i * n * d], keys[i].data(), values[i].data(), &out.data[i * n * d], n, k, d);
  report([=] { return stages::softmax_attention(c); });
  return out;
}

}  // namespace ecosim::ecoformer::detail
