// `ecosim validate --suite compression` (ActNN, GACT, Mesa): over shapes (one element, sizes not a multiple
// of 256, a single Mesa group of 2^20 elements) and input dtypes, the properties each scheme guarantees and,
// with a GPU, CUDA against the CPU reference bit for bit (named SKIP rows without one).
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/gact.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/kernels/mesa.hpp"
#include "ecosim/kernels/philox.hpp"
#include "validation.hpp"

namespace ecosim::cli {

namespace {

using namespace ecosim::kernels;

constexpr std::array<DType, 3> kDTypes = {DType::fp32, DType::fp16, DType::bf16};
constexpr std::array<std::uint64_t, 4> kSizes = {1, 1000, 3 * 256 + 5, (1u << 20) + 3};

/// A seeded normal tensor in `dtype`, kept alive with its view.
struct Input {
  std::vector<std::uint8_t> bytes;
  std::vector<float> values;  // exact fp32 values of the stored elements
  TensorView view;
  Input(std::uint64_t n, DType dtype, std::uint64_t seed) {
    std::vector<float> x(n);
    for (std::uint64_t i = 0; i < n; ++i) x[i] = 0.25f + 2.0f * rng::normal(seed, 0x7a1u, i);
    bytes = encode(x, dtype);
    view = {bytes.data(), dtype, n};
    values = decode(view);
  }
};

float bf16_value(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

std::string case_name(const char* scheme, std::uint64_t n, DType dtype, const std::string& what) {
  return fmt::format("{} n={} {} {}", scheme, n, name(dtype), what);
}

/// Records a GPU check: runs it on cuda, otherwise a SKIP row naming it and the reason.
template <class Check>
void gpu_check(Validation& v, const std::string& check_name, Check check) {
  if (v.device() != DeviceChoice::cuda) {
    const gpu::Availability a = gpu::probe();
    v.skip(check_name, a.available ? "--device cpu" : "no GPU: " + a.reason);
    return;
  }
  check();
}

void actnn_case(Validation& v, const Input& in, unsigned bits) {
  const std::uint64_t n = in.view.elements;
  const actnn::Layout layout = actnn::Layout::uniform(n, bits);
  const actnn::Compressed c = actnn::quantize_cpu(in.view, layout, 17);
  const std::vector<float> y = actnn::dequantize_cpu(c);
  bool covered = true, inside = true;
  for (std::uint64_t g = 0; g < layout.groups(); ++g) {
    const auto first = in.values.begin() + static_cast<std::ptrdiff_t>(g * 256);
    const auto last = in.values.begin() + static_cast<std::ptrdiff_t>(std::min(n, (g + 1) * 256));
    const double zero = bf16_value(c.zero_bf16[g]), top = zero + bf16_value(c.range_bf16[g]);
    covered = covered && zero <= *std::min_element(first, last) && top >= *std::max_element(first, last);
    for (std::uint64_t i = g * 256; i < std::min(n, (g + 1) * 256); ++i)
      inside = inside && y[i] >= zero && y[i] <= top * (1 + 1e-6) + 1e-30;
  }
  const std::string what = fmt::format("{}-bit", bits);
  v.check(case_name("actnn", n, in.view.dtype, what + " metadata covers every group"), covered,
          fmt::format("{} groups", layout.groups()));
  v.check(case_name("actnn", n, in.view.dtype, what + " dequantized within [zero, zero+range]"), inside, "");
  gpu_check(v, case_name("actnn", n, in.view.dtype, what + " GPU == CPU bitwise"), [&] {
    const actnn::Compressed g = actnn::quantize_cuda(in.view, layout, 17);
    const bool same = g.codes == c.codes && g.zero_bf16 == c.zero_bf16 && g.range_bf16 == c.range_bf16 &&
                      actnn::dequantize_cuda(g) == y;
    v.check(case_name("actnn", n, in.view.dtype, what + " GPU == CPU bitwise"), same,
            fmt::format("{} code bytes", c.codes.size()));
  });
}

void mesa_case(Validation& v, const Input& in) {
  const std::uint64_t n = in.view.elements;
  const mesa::Layout layout{1, 1, n};  // one (α, β) for the whole tensor: the largest possible group
  mesa::State state;
  const mesa::Compressed c = mesa::quantize_cpu(in.view, layout, state, 5);
  const auto [lo, hi] = std::minmax_element(in.values.begin(), in.values.end());
  v.check(case_name("mesa", n, in.view.dtype, "first step (alpha, beta) = (max - min, min) exactly"),
          c.alpha[0] == *hi - *lo && c.beta[0] == *lo, fmt::format("alpha {} beta {}", c.alpha[0], c.beta[0]));
  // A second step with every value scaled ×4: the running range lags, the excess saturates (no wrap-around).
  std::vector<float> wide(in.values);
  for (float& x : wide) x *= 4.0f;
  const mesa::Compressed s = mesa::quantize_cpu({wide.data(), DType::fp32, n}, layout, state, 6);
  const std::vector<float> y = mesa::dequantize_cpu(s);
  bool saturates = true;
  for (std::uint64_t i = 0; i < n; ++i) {
    // α = 0 stores code 0 for everything (x̂ = β); otherwise the ends saturate.
    if (s.alpha[0] > 0 && wide[i] >= s.beta[0] + s.alpha[0]) saturates = saturates && s.codes[i] == 255;
    if (wide[i] <= s.beta[0] || s.alpha[0] == 0) saturates = saturates && s.codes[i] == 0;
    saturates = saturates && y[i] >= s.beta[0] && y[i] <= s.beta[0] + s.alpha[0] * (1 + 1e-6f);
  }
  v.check(case_name("mesa", n, in.view.dtype, "out-of-range values saturate at 0/255"), saturates,
          fmt::format("step-2 alpha {} beta {}", s.alpha[0], s.beta[0]));
  gpu_check(v, case_name("mesa", n, in.view.dtype, "GPU == CPU bitwise (2 steps)"), [&] {
    mesa::State gpu_state;
    const mesa::Compressed g1 = mesa::quantize_cuda(in.view, layout, gpu_state, 5);
    const mesa::Compressed g2 = mesa::quantize_cuda({wide.data(), DType::fp32, n}, layout, gpu_state, 6);
    const bool same = g1.codes == c.codes && g1.alpha == c.alpha && g1.beta == c.beta && g2.codes == s.codes &&
                      g2.alpha == s.alpha && g2.beta == s.beta && mesa::dequantize_cuda(g2) == y;
    v.check(case_name("mesa", n, in.view.dtype, "GPU == CPU bitwise (2 steps)"), same, "");
  });
}

void unbiasedness(Validation& v) {
  const Input in(300, DType::fp32, 9);
  constexpr int kSeeds = 1000;
  const actnn::Layout layout = actnn::Layout::uniform(300, 2);
  std::vector<double> mean(300, 0.0);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const std::vector<float> y =
        actnn::dequantize_cpu(actnn::quantize_cpu(in.view, layout, static_cast<std::uint64_t>(seed)));
    for (std::size_t i = 0; i < y.size(); ++i) mean[i] += (static_cast<double>(y[i]) - in.values[i]) / kSeeds;
  }
  const std::vector<double> var = actnn::element_variance(in.view, actnn::quantize_cpu(in.view, layout, 0));
  double worst = 0;
  for (std::size_t i = 0; i < mean.size(); ++i)
    worst = std::max(worst, std::abs(mean[i]) / (std::sqrt(var[i] / kSeeds) + 1e-6));
  v.check("actnn 2-bit mean error within 5 standard errors (1000 seeds)", worst <= 5.0,
          fmt::format("worst {:.2f} SE", worst));
}

void gact_checks(Validation& v) {
  // Equal weights: greedy must reach the brute-force optimum of Σ S(b) for 3 tensors at every budget.
  bool optimal = true;
  for (double average = 1.0; average <= 32.0; average += 0.5) {
    const auto bits = gact::allocate_bits({1, 1, 1}, {64, 64, 64}, average);
    double best = INFINITY, got = 0;
    for (unsigned b : bits) got += gact::variance_factor(b);
    for (unsigned a : gact::kBitChoices)
      for (unsigned b : gact::kBitChoices)
        for (unsigned c : gact::kBitChoices)
          if (a + b + c <= 3 * average)
            best = std::min(best, gact::variance_factor(a) + gact::variance_factor(b) + gact::variance_factor(c));
    optimal = optimal && std::abs(got - best) <= 1e-15;
  }
  v.check("gact greedy allocation == brute force (equal weights)", optimal, "3 tensors, budgets 1..32");
  gact::LinearLayer layer{16, 24, 3, {}, {}};
  for (std::uint64_t i = 0; i < 16 * 24; ++i) layer.x.push_back(rng::normal(3, 1, i));
  for (std::uint64_t i = 0; i < 16 * 3; ++i) layer.upstream.push_back(rng::normal(3, 2, i));
  constexpr int kPairs = 400;
  double mean = 0, m2 = 0;
  std::vector<double> est;
  for (int p = 0; p < kPairs; ++p) est.push_back(layer.estimate_sensitivity(2, 2 * p, 2 * p + 1));
  for (double e : est) mean += e / kPairs;
  for (double e : est) m2 += (e - mean) * (e - mean) / (kPairs - 1);
  const double truth = layer.gradient_variance(2) / gact::variance_factor(2), se = std::sqrt(m2 / kPairs);
  v.check("gact sensitivity estimator unbiased (linear layer, closed form)", std::abs(mean - truth) <= 5 * se,
          fmt::format("estimate {:.4g} ± {:.2g}, closed form {:.4g}", mean, se, truth));
}

}  // namespace

void validate_compression(Validation& v) {
  for (DType dtype : kDTypes)
    for (std::uint64_t n : kSizes) {
      const Input in(n, dtype, n);
      for (unsigned bits : {1u, 2u, 4u, 8u})
        if (n < (1u << 20) || bits == 2) actnn_case(v, in, bits);
      mesa_case(v, in);
    }
  unbiasedness(v);
  gact_checks(v);
}

}  // namespace ecosim::cli
