// CPU steps of the hashed variants' token hash (see hash_math.hpp).
#include "hash_math.hpp"

#include <algorithm>
#include <cmath>

#include "hashed_common.hpp"

namespace ecosim::ecoformer::detail {

void l2_normalize_rows(const float* x, float* out, std::uint64_t rows, std::uint64_t d) {
  for (std::uint64_t i = 0; i < rows; ++i) {
    const float* row = x + i * d;
    float norm2 = 0;
    for (std::uint64_t c = 0; c < d; ++c) norm2 += row[c] * row[c];
    if (!std::isfinite(norm2)) {  // Σx² past FLT_MAX: still a unit row
      unit_row_of_huge(row, out + i * d, static_cast<long long>(d));
      continue;
    }
    const float inv = 1.0f / std::max(std::sqrt(norm2), kNormEps);
    for (std::uint64_t c = 0; c < d; ++c) out[i * d + c] = row[c] * inv;
  }
}

void squared_distances(const float* x, std::uint64_t n, std::uint64_t d, const float* anchors, std::uint64_t m,
                       float* dist) {
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t a = 0; a < m; ++a) {
      float sum = 0;
      for (std::uint64_t c = 0; c < d; ++c) {
        const float diff = x[i * d + c] - anchors[a * d + c];
        sum += diff * diff;
      }
      dist[i * m + a] = sum;
    }
}

float inverse_bandwidth(const float* dist, std::uint64_t count) {
  double sum = 0;
  for (std::uint64_t i = 0; i < count; ++i) sum += dist[i];
  const float sigma = std::max(static_cast<float>(sum) * (1.0f / static_cast<float>(count)), kMinSigma);
  return 1.0f / (2.0f * sigma);
}

void rbf_values(float* dist, std::uint64_t count, float inv) {
  for (std::uint64_t i = 0; i < count; ++i) dist[i] = rbf_exp(dist[i] * -inv);
}

namespace {

/// Each of the m columns' mean over the n rows of k (summed in double).
std::vector<float> column_means(const float* k, std::uint64_t n, std::uint64_t m) {
  std::vector<float> means(m);
  for (std::uint64_t a = 0; a < m; ++a) {
    double sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) sum += k[i * m + a];
    means[a] = static_cast<float>(sum) * (1.0f / static_cast<float>(n));
  }
  return means;
}

}  // namespace

void centre_columns(float* k, std::uint64_t n, std::uint64_t m) { subtract_means(k, n, column_means(k, n, m)); }

void project(const float* f, std::uint64_t n, std::uint64_t c_len, const float* w, std::uint64_t b, float* y) {
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t r = 0; r < b; ++r) {
      float sum = 0;
      for (std::uint64_t c = 0; c < c_len; ++c) sum += w[r * c_len + c] * f[i * c_len + c];
      y[i * b + r] = sum;
    }
}

std::vector<float> centred_kernel(const float* x, std::uint64_t n, std::uint64_t d, const float* anchors,
                                  std::uint64_t m) {
  std::vector<float> k(n * m);
  squared_distances(x, n, d, anchors, m, k.data());
  rbf_values(k.data(), n * m, inverse_bandwidth(k.data(), n * m));
  centre_columns(k.data(), n, m);
  return k;
}

AnchorStatistics anchor_statistics(const float* anchors, std::uint64_t m, std::uint64_t d) {
  std::vector<float> k(m * m);
  squared_distances(anchors, m, d, anchors, m, k.data());
  const float inv = inverse_bandwidth(k.data(), m * m);
  rbf_values(k.data(), m * m, inv);
  return {inv, column_means(k.data(), m, m)};
}

void subtract_means(float* k, std::uint64_t n, const std::vector<float>& means) {
  const std::uint64_t m = means.size();
  for (std::uint64_t i = 0; i < n; ++i)
    for (std::uint64_t a = 0; a < m; ++a) k[i * m + a] -= means[a];
}

std::vector<float> causal_kernel(const float* x, std::uint64_t n, std::uint64_t d, const float* anchors,
                                 std::uint64_t m) {
  return causal_kernel(x, n, d, anchors, m, anchor_statistics(anchors, m, d));
}

std::vector<float> causal_kernel(const float* x, std::uint64_t n, std::uint64_t d, const float* anchors,
                                 std::uint64_t m, const AnchorStatistics& fixed) {
  std::vector<float> k(n * m);
  squared_distances(x, n, d, anchors, m, k.data());
  rbf_values(k.data(), n * m, fixed.inverse_bandwidth);
  subtract_means(k.data(), n, fixed.means);
  return k;
}

}  // namespace ecosim::ecoformer::detail
