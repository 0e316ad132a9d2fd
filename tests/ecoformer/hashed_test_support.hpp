// Helpers of the hashed attention tests: configs, inputs (Gaussian or clustered), a recording sink, and the
// naive O(N²) form of hashed attention computed in double from a run's codes.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "ecosim/ecoformer/hashed_attention.hpp"
#include "ecosim/kernels/philox.hpp"
#include "ecosim/ops_counter/sinks.hpp"

namespace ecosim::test {

using namespace ecosim::ecoformer;

inline constexpr AttentionVariant kHashedVariants[] = {AttentionVariant::ecoformer, AttentionVariant::klsh_ecoformer,
                                                       AttentionVariant::lsh_ecoformer, AttentionVariant::bi_ecoformer,
                                                       AttentionVariant::fp_ecoformer};

using ecosim::RecordingSink;

inline AttentionConfig hashed_config(AttentionVariant v, std::uint64_t batch, std::uint64_t heads, std::uint64_t seq,
                                     std::uint64_t dim, std::uint64_t bits = 16, std::uint64_t support = 25) {
  AttentionConfig c;
  c.variant = v;
  c.batch = batch;
  c.heads = heads;
  c.seq = seq;
  c.head_dim = dim;
  c.bits = bits;
  c.support = support;
  c.projections = false;
  return c;
}

/// Tokens near `clusters` random centres (noise `spread` per coordinate), [batch][heads][seq][dim].
inline Tensor clustered_tokens(const AttentionConfig& c, std::uint64_t clusters, float spread, std::uint64_t seed) {
  Tensor t{c.batch, c.heads, c.seq, c.head_dim, std::vector<float>(c.batch * c.heads * c.seq * c.head_dim)};
  for (std::uint64_t row = 0; row < c.batch * c.heads * c.seq; ++row) {
    const std::uint64_t cluster = static_cast<std::uint64_t>(rng::uniform(seed, 7, row) * static_cast<float>(clusters));
    for (std::uint64_t k = 0; k < c.head_dim; ++k)
      t.data[row * c.head_dim + k] =
          rng::normal(seed, 8, cluster * c.head_dim + k) + spread * rng::normal(seed, 9, row * c.head_dim + k);
  }
  return t;
}

/// h_ir of token `token` from a run's hashes (±1 for binary codes, the real value for fp-ecoformer).
inline double code_value(const HashedRun& run, std::uint64_t token, unsigned r) {
  if (run.params.binary()) return run.hashes.codes.sign(token, r);
  return run.hashes.projections[token * run.params.bits + r];
}

/// Σ_j (h_i·h_j + c) v_j / Σ_j (h_i·h_j + c) per (batch, head), in double; also checks every weight > 0.
inline std::vector<double> naive_hashed(const HashedRun& run, const Tensor& v, bool* all_positive,
                                        bool causal = false) {
  const std::uint64_t groups = v.batch * v.heads, n = v.seq, d = v.dim;
  const auto b = static_cast<unsigned>(run.params.bits);
  std::vector<double> out(v.data.size());
  *all_positive = true;
  for (std::uint64_t g = 0; g < groups; ++g)
    for (std::uint64_t i = 0; i < n; ++i) {
      std::vector<double> num(d, 0.0);
      double den = 0;
      for (std::uint64_t j = 0; j < (causal ? i + 1 : n); ++j) {  // causal: the keys up to the query's own
        double sim = run.bias;
        for (unsigned r = 0; r < b; ++r) sim += code_value(run, g * n + i, r) * code_value(run, g * n + j, r);
        *all_positive = *all_positive && sim > 0;
        den += sim;
        for (std::uint64_t k = 0; k < d; ++k) num[k] += sim * v.data[(g * n + j) * d + k];
      }
      for (std::uint64_t k = 0; k < d; ++k) out[(g * n + i) * d + k] = num[k] / den;
    }
  return out;
}

/// ‖a − b‖_F / ‖b‖_F.
inline double relative_error(const std::vector<float>& a, const std::vector<double>& b) {
  double diff = 0, ref = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    ref += b[i] * b[i];
  }
  return std::sqrt(diff / ref);
}

}  // namespace ecosim::test
