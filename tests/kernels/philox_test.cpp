// Philox-4×32-10 against Random123's known-answer vectors, uniformity of the derived U[0,1) draws and the moments
// of the normal ones.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>

#include "ecosim/kernels/philox.hpp"

using ecosim::rng::Philox4x32;

namespace {
void require_words(const Philox4x32& got, const std::array<std::uint32_t, 4>& want) {
  for (int i = 0; i < 4; ++i) REQUIRE(got.v[i] == want[i]);
}
}  // namespace

TEST_CASE("philox4x32-10 matches the Random123 known-answer vectors", "[philox]") {
  require_words(ecosim::rng::philox4x32_10({{0, 0, 0, 0}}, 0, 0), {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  require_words(ecosim::rng::philox4x32_10({{~0u, ~0u, ~0u, ~0u}}, ~0u, ~0u),
                {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  require_words(ecosim::rng::philox4x32_10({{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0),
                {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

// (No unbalanced '[' in a test name: CTest's discovery would join the names after it into one test.)
TEST_CASE("uniform draws lie in 0 <= u < 1, have mean 1/2 and fill 16 bins evenly (chi-square)", "[philox]") {
  constexpr int kDraws = 160000, kBins = 16;
  std::array<int, kBins> bins{};
  double sum = 0;
  for (int i = 0; i < kDraws; ++i) {
    const float u = ecosim::rng::uniform(42, 7, static_cast<std::uint64_t>(i));
    REQUIRE(u >= 0.0f);
    REQUIRE(u < 1.0f);
    sum += u;
    ++bins[static_cast<int>(u * kBins)];
  }
  // Mean of U[0,1): standard error sqrt(1/12 / n); allow 5 standard errors.
  REQUIRE(std::abs(sum / kDraws - 0.5) < 5.0 * std::sqrt(1.0 / 12.0 / kDraws));
  double chi2 = 0;
  const double expected = static_cast<double>(kDraws) / kBins;
  for (int b : bins) chi2 += (b - expected) * (b - expected) / expected;
  REQUIRE(chi2 < 37.7);  // 15 degrees of freedom: P(χ² > 37.7) ≈ 0.001
}

TEST_CASE("different seeds, streams and indices give different words", "[philox]") {
  const auto w = [](std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
    return ecosim::rng::random_words(seed, stream, index).v[0];
  };
  REQUIRE(w(1, 0, 0) != w(2, 0, 0));
  REQUIRE(w(1, 0, 0) != w(1, 1, 0));
  REQUIRE(w(1, 0, 0) != w(1, 0, 1));
  REQUIRE(w(1, 0, 0) != w(1, 0, std::uint64_t{1} << 32));  // the index's high word is part of the counter
  REQUIRE(w(1, 0, 0) != w(std::uint64_t{1} | (std::uint64_t{1} << 32), 0, 0));  // so is the seed's
}

TEST_CASE("normal draws have mean 0, standard deviation 1 and the normal's mass within one and two deviations",
          "[philox]") {
  // The synthetic tensor of `ecosim compress` (its --help says standard normal) is drawn this way.
  constexpr int kDraws = 400000;
  double sum = 0, sum_squares = 0;
  int within_one = 0, within_two = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double x = ecosim::rng::normal(3, 0x1a9u, static_cast<std::uint64_t>(i));
    sum += x;
    sum_squares += x * x;
    within_one += std::abs(x) < 1;
    within_two += std::abs(x) < 2;
  }
  const double mean = sum / kDraws, variance = sum_squares / kDraws - mean * mean;
  // Five standard errors: of the mean 1/√n, of the variance √(2/n), of a fraction √(p(1−p)/n).
  CHECK(std::abs(mean) < 5 / std::sqrt(double(kDraws)));
  CHECK(std::abs(variance - 1) < 5 * std::sqrt(2.0 / kDraws));
  CHECK(std::abs(double(within_one) / kDraws - 0.682689) < 5 * std::sqrt(0.682689 * 0.317311 / kDraws));
  CHECK(std::abs(double(within_two) / kDraws - 0.954500) < 5 * std::sqrt(0.9545 * 0.0455 / kDraws));
}
