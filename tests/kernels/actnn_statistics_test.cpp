// ActNN stochastic rounding statistics over 1000 seeds: every element's mean error is within 5 standard
// errors of 0 (unbiased), and its empirical variance matches (R/B)²·f(1−f) within 5 standard errors of the
// sample variance (fourth central moment of the two-point distribution: step⁴·p(1−3p), p = f(1−f)).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "compression_test_data.hpp"
#include "ecosim/kernels/actnn.hpp"

using namespace ecosim;
using namespace ecosim::kernels;

namespace {

constexpr int kSeeds = 1000;

void require_unbiased_with_closed_form_variance(const actnn::Layout& layout) {
  const std::vector<float> x = test::normal_tensor(layout.elements(), 21, 0.3f, 1.5f);
  const TensorView view{x.data(), DType::fp32, x.size()};
  std::vector<double> sum(x.size(), 0.0), sum2(x.size(), 0.0);
  for (int seed = 0; seed < kSeeds; ++seed) {
    const std::vector<float> y =
        actnn::dequantize_cpu(actnn::quantize_cpu(view, layout, static_cast<std::uint64_t>(seed)));
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double err = static_cast<double>(y[i]) - x[i];
      sum[i] += err;
      sum2[i] += err * err;
    }
  }
  const actnn::Compressed c = actnn::quantize_cpu(view, layout, 0);
  const std::vector<double> variance = actnn::element_variance(view, c);
  for (std::uint64_t s = 0; s < layout.samples; ++s)
    for (std::uint64_t j = 0; j < layout.sample_elements; ++j) {
      const std::uint64_t i = s * layout.sample_elements + j, g = s * layout.groups_per_sample() + j / 256;
      std::uint32_t range_bits = static_cast<std::uint32_t>(c.range_bf16[g]) << 16;
      float range;
      std::memcpy(&range, &range_bits, sizeof range);
      const double step = range / ((1 << layout.bits[s]) - 1);
      // fp32 rounding of the quantize/dequantize arithmetic and the 2^-16 resolution of U.
      const double slack = step * std::ldexp(1.0, -16) + 8 * std::ldexp(1.0, -24) * (std::abs(x[i]) + 2 * range + 1);
      const double mean = sum[i] / kSeeds, var = sum2[i] / kSeeds - mean * mean;
      const double p = variance[i] / (step * step);
      const double se_mean = std::sqrt(variance[i] / kSeeds);
      const double se_var = std::sqrt(std::max(0.0, step * step * step * step * p * (1 - 3 * p) / kSeeds));
      CAPTURE(i, x[i], mean, var, variance[i], se_mean, se_var);
      REQUIRE(std::abs(mean) <= 5 * se_mean + slack);
      REQUIRE(std::abs(var - variance[i]) <= 5 * se_var + 2 * slack * (slack + step));
    }
}

}  // namespace

TEST_CASE("stochastic rounding is unbiased with variance (R/B)^2 f(1-f), uniform 2 bits", "[actnn][statistics]") {
  require_unbiased_with_closed_form_variance(actnn::Layout::uniform(520, 2));
}

TEST_CASE("stochastic rounding is unbiased with variance (R/B)^2 f(1-f), mixed 1/8 bits", "[actnn][statistics]") {
  require_unbiased_with_closed_form_variance({2, 260, {1, 8}});
}
