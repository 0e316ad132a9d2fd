// Naive double-precision softmax attention and the relative error measures of reference.hpp.
#include "ecosim/ecoformer/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::ecoformer {

namespace {
void require_same_size(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size())
    throw Error("cannot compare tensors of " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                " values");
}
}  // namespace

Tensor naive_softmax_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool mask_own_key) {
  if (k.batch != q.batch || v.batch != q.batch || k.heads != q.heads || v.heads != q.heads || k.dim != q.dim ||
      v.dim != q.dim || k.seq != v.seq || (mask_own_key && k.seq != q.seq))
    throw Error("naive_softmax_attention: mismatched shapes");
  const std::uint64_t groups = q.batch * q.heads, n = q.seq, keys = k.seq, d = q.dim;
  Tensor out{q.batch, q.heads, n, d, std::vector<float>(q.data.size())};
  std::vector<double> weights(keys), row(d);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (std::uint64_t g = 0; g < groups; ++g)
    for (std::uint64_t i = 0; i < n; ++i) {
      double max = -std::numeric_limits<double>::infinity(), sum = 0;
      for (std::uint64_t j = 0; j < keys; ++j) {
        double s = 0;
        for (std::uint64_t c = 0; c < d; ++c) s += double{q.data[(g * n + i) * d + c]} * k.data[(g * keys + j) * d + c];
        weights[j] = mask_own_key && j == i && keys > 1 ? -std::numeric_limits<double>::infinity() : s * scale;
        max = std::max(max, weights[j]);
      }
      for (double& w : weights) sum += w = std::exp(w - max);
      std::fill(row.begin(), row.end(), 0.0);
      for (std::uint64_t j = 0; j < keys; ++j)
        for (std::uint64_t c = 0; c < d; ++c) row[c] += weights[j] / sum * v.data[(g * keys + j) * d + c];
      for (std::uint64_t c = 0; c < d; ++c) out.data[(g * n + i) * d + c] = static_cast<float>(row[c]);
    }
  return out;
}

double relative_frobenius_error(const std::vector<float>& a, const std::vector<float>& b) {
  require_same_size(a, b);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double e = double{a[i]} - b[i];
    diff += e * e;
    norm += double{b[i]} * b[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

double max_relative_error(const std::vector<float>& a, const std::vector<float>& b) {
  require_same_size(a, b);
  double diff = 0, scale = 1e-30;
  for (std::size_t i = 0; i < a.size(); ++i) {
    // a NaN, or an infinity where the other is not the same one, is no agreement (std::max would pass over it)
    if (!(std::isfinite(a[i]) && std::isfinite(b[i])) && !(a[i] == b[i]))
      return std::numeric_limits<double>::infinity();
    diff = std::max(diff, std::abs(double{a[i]} - b[i]));
    scale = std::max(scale, std::abs(double{b[i]}));
  }
  return diff / scale;
}

}  // namespace ecosim::ecoformer
