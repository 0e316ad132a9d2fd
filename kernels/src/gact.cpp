// GACT: per-tensor bit allocation (greedy by variance decrease per bit) and the linear-layer demonstration
// of the two-seed sensitivity estimator against the closed-form gradient variance.
#include "ecosim/kernels/gact.hpp"

#include <cmath>
#include <string>

#include "ecosim/kernels/actnn.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::kernels::gact {

double variance_factor(unsigned bits) {
  if (bits == 32) return 0.0;
  if (bits != 1 && bits != 2 && bits != 4 && bits != 8)
    throw Error("gact: unsupported bit width " + std::to_string(bits) + " (valid: 1, 2, 4, 8, 32)");
  const double levels = std::ldexp(1.0, static_cast<int>(bits)) - 1.0;
  return 1.0 / (levels * levels);
}

std::vector<unsigned> allocate_bits(const std::vector<double>& sensitivity, const std::vector<std::uint64_t>& elements,
                                    double average_bits, const std::vector<unsigned>& raw_bits) {
  const std::size_t tensors = sensitivity.size();
  if (tensors == 0 || elements.size() != tensors || (!raw_bits.empty() && raw_bits.size() != tensors))
    throw Error("gact: need one size (and raw width, when given) per sensitivity, and at least one tensor");
  for (unsigned raw : raw_bits)
    if (raw != 16 && raw != 32) throw Error("gact: a raw width is 16 or 32 bits, got " + std::to_string(raw));
  // the bits per element of choice c for tensor l: kept raw, its own dtype's width
  const auto width = [&](std::size_t l, std::size_t c) {
    return c + 1 == kBitChoices.size() && !raw_bits.empty() ? raw_bits[l] : kBitChoices[c];
  };
  double total_elements = 0;
  for (std::size_t l = 0; l < tensors; ++l) {
    if (elements[l] == 0) throw Error("gact: tensor " + std::to_string(l) + " is empty");
    if (!(sensitivity[l] >= 0.0) || !std::isfinite(sensitivity[l]))
      throw Error("gact: sensitivities must be finite and ≥ 0");
    total_elements += static_cast<double>(elements[l]);
  }
  if (!(average_bits >= 1.0)) throw Error("gact: the average bit budget must be at least 1");
  double spare_bits = (average_bits - 1.0) * total_elements;  // everything starts at 1 bit
  std::vector<std::size_t> choice(tensors, 0);                // index into kBitChoices
  for (;;) {
    std::size_t best = tensors;
    double best_gain = -1.0;
    for (std::size_t l = 0; l < tensors; ++l) {
      if (choice[l] + 1 == kBitChoices.size()) continue;
      const double cost =
          static_cast<double>(width(l, choice[l] + 1) - width(l, choice[l])) * static_cast<double>(elements[l]);
      if (cost > spare_bits) continue;
      const double gain = sensitivity[l] *
                          (variance_factor(kBitChoices[choice[l]]) - variance_factor(kBitChoices[choice[l] + 1])) /
                          cost;
      if (gain > best_gain) {
        best_gain = gain;
        best = l;
      }
    }
    if (best == tensors) break;
    spare_bits -= static_cast<double>(width(best, choice[best] + 1) - width(best, choice[best])) *
                  static_cast<double>(elements[best]);
    ++choice[best];
  }
  std::vector<unsigned> bits(tensors);
  for (std::size_t l = 0; l < tensors; ++l) bits[l] = kBitChoices[choice[l]];
  return bits;
}

namespace {
TensorView view(const LinearLayer& layer) { return {layer.x.data(), DType::fp32, layer.x.size()}; }
void check(const LinearLayer& layer) {
  if (layer.rows == 0 || layer.in == 0 || layer.out == 0 || layer.x.size() != layer.rows * layer.in ||
      layer.upstream.size() != layer.rows * layer.out)
    throw Error("gact: linear layer sizes do not match its X and G");
}
}  // namespace

std::vector<double> LinearLayer::weight_gradient(unsigned bits, std::uint64_t seed) const {
  check(*this);
  variance_factor(bits);
  const std::vector<float> xq =
      bits == 32
          ? x
          : actnn::dequantize_cpu(actnn::quantize_cpu(view(*this), actnn::Layout::uniform(x.size(), bits), seed));
  std::vector<double> grad(in * out, 0.0);
  for (std::uint64_t i = 0; i < rows; ++i)
    for (std::uint64_t j = 0; j < in; ++j)
      for (std::uint64_t k = 0; k < out; ++k)
        grad[j * out + k] += static_cast<double>(xq[i * in + j]) * upstream[i * out + k];
  return grad;
}

double LinearLayer::gradient_variance(unsigned bits) const {
  check(*this);
  if (variance_factor(bits) == 0.0) return 0.0;
  // The metadata (group min/max) does not depend on the seed, so neither does the variance.
  const actnn::Compressed c = actnn::quantize_cpu(view(*this), actnn::Layout::uniform(x.size(), bits), 0);
  const std::vector<double> v = actnn::element_variance(view(*this), c);
  double total = 0;
  for (std::uint64_t i = 0; i < rows; ++i) {
    double row_norm2 = 0;
    for (std::uint64_t k = 0; k < out; ++k)
      row_norm2 += static_cast<double>(upstream[i * out + k]) * upstream[i * out + k];
    for (std::uint64_t j = 0; j < in; ++j) total += v[i * in + j] * row_norm2;
  }
  return total;
}

double LinearLayer::estimate_sensitivity(unsigned bits, std::uint64_t seed0, std::uint64_t seed1) const {
  const double s = variance_factor(bits);
  if (s == 0.0) throw Error("gact: raw (32-bit) tensors have no quantization variance to estimate from");
  const std::vector<double> g0 = weight_gradient(bits, seed0), g1 = weight_gradient(bits, seed1);
  double diff2 = 0;
  for (std::size_t i = 0; i < g0.size(); ++i) diff2 += (g0[i] - g1[i]) * (g0[i] - g1[i]);
  return 0.5 * diff2 / s;
}

}  // namespace ecosim::kernels::gact
