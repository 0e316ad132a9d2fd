// Approximation quality on clustered synthetic tokens (fixed seeds): how well each hash preserves every
// token's top-k neighbours (cosine similarity), measured as the expected recall@k of the code similarity
// h_i·h_j (ties broken at random, in expectation). The paper's Table 5 order is learned KSH > KLSH > LSH;
// here it holds for overlapping clusters, while for tight clusters KLSH falls to LSH's level or below.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>
#include <numeric>

#include "hashed_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {

constexpr std::uint64_t kTopK = 10;

/// Mean over tokens i of E[|true top-k(i) ∩ code top-k(i)|]/k, self excluded, one (batch, head) group.
double neighbour_recall(const Tensor& q, const HashedRun& run) {
  const std::uint64_t n = q.seq, d = q.dim;
  const auto bits = static_cast<unsigned>(run.params.bits);
  std::vector<double> x(q.data.begin(), q.data.end());
  for (std::uint64_t i = 0; i < n; ++i) {
    double norm = 0;
    for (std::uint64_t k = 0; k < d; ++k) norm += x[i * d + k] * x[i * d + k];
    for (std::uint64_t k = 0; k < d; ++k) x[i * d + k] /= std::sqrt(norm);
  }
  double total = 0;
  std::vector<std::uint64_t> others(n - 1);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::iota(others.begin(), others.end(), 0);
    std::transform(others.begin(), others.end(), others.begin(), [i](std::uint64_t j) { return j < i ? j : j + 1; });
    auto cosine = [&](std::uint64_t j) {
      double s = 0;
      for (std::uint64_t k = 0; k < d; ++k) s += x[i * d + k] * x[j * d + k];
      return s;
    };
    std::partial_sort(others.begin(), others.begin() + kTopK, others.end(),
                      [&](std::uint64_t a, std::uint64_t b) { return cosine(a) > cosine(b); });
    const std::vector<std::uint64_t> truth(others.begin(), others.begin() + kTopK);
    auto code_sim = [&](std::uint64_t j) { return code_dot(run.hashes.codes.word(i), run.hashes.codes.word(j), bits); };
    std::vector<int> sims;
    for (std::uint64_t j = 0; j < n; ++j)
      if (j != i) sims.push_back(code_sim(j));
    std::nth_element(sims.begin(), sims.begin() + (kTopK - 1), sims.end(), std::greater<>());
    const int threshold = sims[kTopK - 1];
    const auto above =
        static_cast<double>(std::count_if(sims.begin(), sims.end(), [&](int s) { return s > threshold; }));
    const auto tied = static_cast<double>(std::count(sims.begin(), sims.end(), threshold));
    double hits = 0;
    for (std::uint64_t j : truth)
      hits += code_sim(j) > threshold    ? 1.0
              : code_sim(j) == threshold ? (static_cast<double>(kTopK) - above) / tied
                                         : 0.0;
    total += hits / static_cast<double>(kTopK);
  }
  return total / static_cast<double>(n);
}

struct Recalls {
  double ksh, klsh, lsh;
};

/// Mean recall over three seeds of N = 256 tokens, D = 32, b = 16, m = 25, 8 clusters of the given spread
/// (noise standard deviation relative to the centres' 1).
Recalls measure(float spread) {
  auto mean_recall = [spread](AttentionVariant v) {
    double sum = 0;
    for (std::uint64_t seed : {101u, 202u, 303u}) {
      const AttentionConfig c = hashed_config(v, 1, 1, 256, 32, 16, 25);
      AttentionInputs in = synthetic_inputs(c, seed);
      in.q = clustered_tokens(c, 8, spread, seed);
      RecordingSink sink;
      sum += neighbour_recall(in.q, run_hashed_detailed(in, c, Device::cpu, seed, sink));
    }
    return sum / 3.0;
  };
  const Recalls r{mean_recall(AttentionVariant::ecoformer), mean_recall(AttentionVariant::klsh_ecoformer),
                  mean_recall(AttentionVariant::lsh_ecoformer)};
  std::cout << "recall@" << kTopK << " (N = 256, D = 32, b = 16, m = 25, 8 clusters, spread " << spread
            << ", 3 seeds): learned KSH " << r.ksh << ", KLSH " << r.klsh << ", LSH " << r.lsh << "\n";
  return r;
}

}  // namespace

TEST_CASE("overlapping clusters: learned KSH > KLSH > LSH in top-k neighbour recall", "[hashed][quality]") {
  const Recalls r = measure(1.0f);
  CHECK(r.ksh > r.klsh + 0.05);
  CHECK(r.klsh > r.lsh + 0.02);
}

TEST_CASE("tight clusters: learned KSH is still best (KLSH need not beat LSH there)", "[hashed][quality]") {
  // Measured, not assumed: with tight clusters (spread 0.2) random hyperplanes already separate them and
  // KLSH's 25-anchor kernel features do no better than LSH; only the learned projection gains.
  const Recalls r = measure(0.2f);
  CHECK(r.ksh > std::max(r.klsh, r.lsh) + 0.01);
}
