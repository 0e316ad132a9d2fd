// GACT: S(b), greedy allocation against brute force (equal weights: identical objective), and the linear-layer
// demonstration: measured gradient variance and the two-seed sensitivity estimator against Σ‖G_i‖²·Var(X̂_ij).
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "compression_test_data.hpp"
#include "ecosim/kernels/gact.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::kernels;

namespace {

double objective(const std::vector<double>& c, const std::vector<unsigned>& bits) {
  double total = 0;
  for (std::size_t l = 0; l < c.size(); ++l) total += c[l] * gact::variance_factor(bits[l]);
  return total;
}

/// Exhaustive minimum of Σ c·S(b) over all 5^L choices within the budget.
double brute_force_minimum(const std::vector<double>& c, const std::vector<std::uint64_t>& d, double average_bits) {
  double budget = 0;
  for (auto e : d) budget += average_bits * static_cast<double>(e);
  double best = INFINITY;
  std::vector<unsigned> bits(c.size());
  std::function<void(std::size_t, double)> visit = [&](std::size_t l, double used) {
    if (used > budget) return;
    if (l == c.size()) {
      best = std::min(best, objective(c, bits));
      return;
    }
    for (unsigned b : gact::kBitChoices) {
      bits[l] = b;
      visit(l + 1, used + static_cast<double>(b) * static_cast<double>(d[l]));
    }
  };
  visit(0, 0.0);
  return best;
}

gact::LinearLayer linear_layer() {
  gact::LinearLayer layer{32, 20, 4, test::normal_tensor(32 * 20, 1, 0.2f, 1.0f), test::normal_tensor(32 * 4, 2)};
  return layer;
}

}  // namespace

TEST_CASE("S(b) = (2^b - 1)^-2 with S(32) = 0", "[gact]") {
  REQUIRE(gact::variance_factor(1) == 1.0);
  REQUIRE(gact::variance_factor(2) == Approx(1.0 / 9));
  REQUIRE(gact::variance_factor(4) == Approx(1.0 / 225));
  REQUIRE(gact::variance_factor(8) == Approx(1.0 / 65025));
  REQUIRE(gact::variance_factor(32) == 0.0);
  REQUIRE_THROWS_AS(gact::variance_factor(3), Error);
}

TEST_CASE("greedy allocation reaches the brute-force optimum with equal weights", "[gact]") {
  for (std::size_t tensors = 1; tensors <= 4; ++tensors)
    for (double average = 1.0; average <= 32.0; average += 0.25) {
      const std::vector<double> c(tensors, 1.0);
      const std::vector<std::uint64_t> d(tensors, 100);
      CAPTURE(tensors, average);
      const std::vector<unsigned> bits = gact::allocate_bits(c, d, average);
      REQUIRE(objective(c, bits) == Approx(brute_force_minimum(c, d, average)).margin(1e-15));
    }
}

TEST_CASE("greedy allocation respects the budget and never beats brute force with unequal weights", "[gact]") {
  const std::vector<double> c = {5.0, 0.1, 40.0};
  const std::vector<std::uint64_t> d = {100, 300, 50};
  for (double average = 1.0; average <= 32.0; average += 0.5) {
    const std::vector<unsigned> bits = gact::allocate_bits(c, d, average);
    double used = 0;
    for (std::size_t l = 0; l < c.size(); ++l) used += bits[l] * static_cast<double>(d[l]);
    REQUIRE(used <= average * 450);
    REQUIRE(objective(c, bits) >= brute_force_minimum(c, d, average) - 1e-15);
  }
  REQUIRE_THROWS_AS(gact::allocate_bits({1.0}, {10}, 0.5), Error);
  REQUIRE_THROWS_AS(gact::allocate_bits({1.0, 2.0}, {10}, 4), Error);
  REQUIRE_THROWS_AS(gact::allocate_bits({1.0, 2.0}, {10, 10}, 4, {16}), Error);
  REQUIRE_THROWS_AS(gact::allocate_bits({1.0}, {10}, 4, {8}), Error);
}

TEST_CASE("a tensor kept raw costs its own dtype's width", "[gact]") {
  // one fp16 tensor: raw (16 bits) fits a 16-bit budget, 8 bits is the most below it; an fp32 one needs 32
  REQUIRE(gact::allocate_bits({1.0}, {100}, 16, {16}) == std::vector<unsigned>{32});
  REQUIRE(gact::allocate_bits({1.0}, {100}, 15.9, {16}) == std::vector<unsigned>{8});
  REQUIRE(gact::allocate_bits({1.0}, {100}, 16, {32}) == std::vector<unsigned>{8});
  REQUIRE(gact::allocate_bits({1.0}, {100}, 16) == gact::allocate_bits({1.0}, {100}, 16, {32}));
  // an fp16 and an fp32 tensor under 12 bits on average (2400 bits): the fp16 one raw (1600) and the fp32 one at
  // 8 bits (800) spend exactly the budget; both at 8 bits would leave variance the raw choice removes
  const std::vector<unsigned> bits = gact::allocate_bits({1.0, 1.0}, {100, 100}, 12, {16, 32});
  REQUIRE(bits == std::vector<unsigned>{32, 8});
}

TEST_CASE("the linear layer's measured weight-gradient variance matches sum ||G_i||^2 Var(X_ij)", "[gact]") {
  const gact::LinearLayer layer = linear_layer();
  const std::vector<double> exact = layer.weight_gradient(32, 0);
  for (unsigned bits : {2u, 4u}) {
    constexpr int kSeeds = 1500;
    std::vector<double> sq;
    for (int seed = 0; seed < kSeeds; ++seed) {
      const std::vector<double> g = layer.weight_gradient(bits, static_cast<std::uint64_t>(seed));
      double d2 = 0;
      for (std::size_t i = 0; i < g.size(); ++i) d2 += (g[i] - exact[i]) * (g[i] - exact[i]);
      sq.push_back(d2);
    }
    double mean = 0, m2 = 0;
    for (double v : sq) mean += v / kSeeds;
    for (double v : sq) m2 += (v - mean) * (v - mean) / (kSeeds - 1);
    CAPTURE(bits, mean, layer.gradient_variance(bits));
    REQUIRE(std::abs(mean - layer.gradient_variance(bits)) <= 5 * std::sqrt(m2 / kSeeds));
  }
}

TEST_CASE("the two-seed sensitivity estimator is unbiased within its standard error", "[gact]") {
  const gact::LinearLayer layer = linear_layer();
  constexpr unsigned kBits = 2;
  constexpr int kPairs = 800;
  std::vector<double> estimates;
  for (int p = 0; p < kPairs; ++p)
    estimates.push_back(
        layer.estimate_sensitivity(kBits, 2 * static_cast<std::uint64_t>(p), 2 * static_cast<std::uint64_t>(p) + 1));
  double mean = 0, m2 = 0;
  for (double v : estimates) mean += v / kPairs;
  for (double v : estimates) m2 += (v - mean) * (v - mean) / (kPairs - 1);
  const double truth = layer.gradient_variance(kBits) / gact::variance_factor(kBits);
  CAPTURE(mean, truth);
  REQUIRE(std::abs(mean - truth) <= 5 * std::sqrt(m2 / kPairs));
  REQUIRE_THROWS_AS(layer.estimate_sensitivity(32, 0, 1), Error);
}
