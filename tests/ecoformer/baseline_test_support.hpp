// Helpers of the baseline attention tests: configs, synthetic inputs, and naive double-precision
// references written independently of the library (two-pass softmax, O(N²) forms, no online rescaling).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/ops_counter/op_counter.hpp"

namespace ecosim::test {

using namespace ecosim::ecoformer;

inline AttentionConfig baseline_config(AttentionVariant v, std::uint64_t batch, std::uint64_t heads, std::uint64_t seq,
                                       std::uint64_t dim) {
  AttentionConfig c;
  c.variant = v;
  c.batch = batch, c.heads = heads, c.seq = seq, c.head_dim = dim;
  c.projections = false;
  return c;
}

inline std::vector<float> run_cpu(const AttentionInputs& in, const AttentionConfig& c, std::uint64_t seed = 3) {
  OpCounter discard;
  return run_attention(in, c, Device::cpu, seed, discard).out.data;
}

/// Row-major access to row `t` of group `g` of a [groups][rows][dim] buffer.
inline const float* row(const std::vector<float>& x, std::uint64_t g, std::uint64_t rows, std::uint64_t t,
                        std::uint64_t dim) {
  return &x[(g * rows + t) * dim];
}

inline double dot(const float* a, const float* b, std::uint64_t d) {
  double s = 0;
  for (std::uint64_t c = 0; c < d; ++c) s += double{a[c]} * b[c];
  return s;
}

/// Per group and query i: out_i = Σ_j w(i, j)·v_j / Σ_j w(i, j) over the keys `keys_of(g, i)` lists (a key
/// may appear several times), with w(i, j) = weight(g, i, j) > 0. Every baseline's reference is one of these.
inline std::vector<float> weighted_average(
    const AttentionConfig& c, const std::vector<float>& v, std::uint64_t value_rows,
    const std::function<std::vector<std::uint64_t>(std::uint64_t, std::uint64_t)>& keys_of,
    const std::function<double(std::uint64_t, std::uint64_t, std::uint64_t)>& log_weight) {
  const std::uint64_t groups = c.batch * c.heads, n = c.seq, d = c.head_dim;
  std::vector<float> out(groups * n * d);
  for (std::uint64_t g = 0; g < groups; ++g)
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::vector<std::uint64_t> keys = keys_of(g, i);
      std::vector<double> logw(keys.size());
      double max = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < keys.size(); ++j) max = std::max(max, logw[j] = log_weight(g, i, keys[j]));
      std::vector<double> acc(d, 0.0);
      double sum = 0;
      for (std::size_t j = 0; j < keys.size(); ++j) {
        const double w = std::exp(logw[j] - max);
        sum += w;
        for (std::uint64_t col = 0; col < d; ++col) acc[col] += w * v[(g * value_rows + keys[j]) * d + col];
      }
      for (std::uint64_t col = 0; col < d; ++col) out[(g * n + i) * d + col] = static_cast<float>(acc[col] / sum);
    }
  return out;
}

inline std::vector<std::uint64_t> all_keys(std::uint64_t count) {
  std::vector<std::uint64_t> keys(count);
  for (std::uint64_t j = 0; j < count; ++j) keys[j] = j;
  return keys;
}

/// The largest |a − b|; infinite where either holds a NaN or an Inf (never a pass by a NaN's silent compare).
inline double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double diff = std::abs(double{a[i]} - b[i]);
    m = std::isfinite(diff) ? std::max(m, diff) : std::numeric_limits<double>::infinity();
  }
  return m;
}

}  // namespace ecosim::test
