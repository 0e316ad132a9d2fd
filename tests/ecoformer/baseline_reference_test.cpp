// Each baseline's CPU kernel against an independent naive implementation written here in double precision:
// MSA (online softmax vs two-pass softmax; causal), Performer (O(N²) kernel form; causal), Linformer (explicit
// E·K, E·V),
// Reformer (explicit buckets, stable sort and chunk membership, own key masked; rounds summed as one softmax).
#include <catch2/catch.hpp>
#include <limits>
#include <numeric>

#include "baseline_test_support.hpp"
#include "ecosim/ecoformer/random_parameters.hpp"
#include "ecosim/ecoformer/reference.hpp"

using namespace ecosim;
using namespace ecosim::test;

TEST_CASE("the largest relative difference: a NaN, or an infinity the other lacks, never agrees", "[baselines]") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  CHECK(max_relative_error({1.0f, 2.5f}, {1.0f, 2.0f}) == Approx(0.25));  // 0.5 / 2
  CHECK(max_relative_error({nan, nan}, {1.0f, 2.0f}) == inf);             // an all-NaN kernel output
  CHECK(max_relative_error({1.0f, 2.0f}, {1.0f, nan}) == inf);
  CHECK(max_relative_error({inf, 1.0f}, {3.0f, 1.0f}) == inf);
  CHECK(max_relative_error({inf, 1.0f}, {inf, 1.0f}) == 0);  // the same infinity agrees
}

TEST_CASE("online-softmax MSA equals the naive two-pass softmax", "[baselines]") {
  // N = 300 spans two key blocks and a partial query block; odd sizes elsewhere
  for (auto [b, h, n, d] : {std::array<std::uint64_t, 4>{1, 1, 1, 16}, {2, 3, 37, 32}, {1, 2, 300, 64}}) {
    const AttentionConfig c = baseline_config(AttentionVariant::msa, b, h, n, d);
    const AttentionInputs in = synthetic_inputs(c, 11);
    const double scale = 1.0 / std::sqrt(double(d));
    const auto expected = weighted_average(
        c, in.v.data, n, [&](auto, auto) { return all_keys(n); },
        [&](auto g, auto i, auto j) { return scale * dot(row(in.q.data, g, n, i, d), row(in.k.data, g, n, j, d), d); });
    CHECK(max_abs_diff(run_cpu(in, c), expected) < 2e-6);
  }
}

TEST_CASE("causal MSA equals the naive softmax over keys 0..i", "[baselines]") {
  // N = 300: query blocks of 64 against key blocks of 256, the second key block partly and then wholly hidden
  for (auto [b, h, n, d] : {std::array<std::uint64_t, 4>{1, 1, 1, 16}, {2, 3, 37, 32}, {1, 2, 300, 64}}) {
    AttentionConfig c = baseline_config(AttentionVariant::msa, b, h, n, d);
    c.causal = true;
    const AttentionInputs in = synthetic_inputs(c, 11);
    const double scale = 1.0 / std::sqrt(double(d));
    const auto expected = weighted_average(
        c, in.v.data, n, [&](auto, auto i) { return all_keys(i + 1); },
        [&](auto g, auto i, auto j) { return scale * dot(row(in.q.data, g, n, i, d), row(in.k.data, g, n, j, d), d); });
    CHECK(max_abs_diff(run_cpu(in, c), expected) < 2e-6);
  }
}

TEST_CASE("MSA with large logits stays finite and exact", "[baselines]") {
  AttentionConfig c = baseline_config(AttentionVariant::msa, 1, 1, 50, 16);
  AttentionInputs in = synthetic_inputs(c, 5);
  for (float& x : in.q.data) x *= 40.0f;  // logits in the hundreds: exp overflows without the max shift
  const auto out = run_cpu(in, c);
  const double scale = 0.25;
  const auto expected = weighted_average(
      c, in.v.data, 50, [&](auto, auto) { return all_keys(50); },
      [&](auto g, auto i, auto j) {
        return scale * dot(row(in.q.data, g, 50, i, 16), row(in.k.data, g, 50, j, 16), 16);
      });
  CHECK(max_abs_diff(out, expected) < 1e-4);
}

TEST_CASE("Performer equals its O(N^2) kernel form with the same random features, causal too", "[baselines]") {
  // ×8: q and k large enough that exp(−‖x̃‖²/2) underflows in fp32 (the features were 0/0 before they were
  // stabilised, performer_features.hpp); the reference below computes in double, in the log domain
  for (const auto& [causal, scale] : {std::pair{false, 1.0f}, {true, 1.0f}, {false, 8.0f}, {true, 8.0f}}) {
    INFO("causal " << causal << ", inputs ×" << scale);
    AttentionConfig c = baseline_config(AttentionVariant::performer, 2, 2, 23, 16);
    c.features = 40;  // two orthogonal blocks of 16 and a truncated one
    c.causal = causal;
    AttentionInputs in = synthetic_inputs(c, 4);
    for (float& x : in.q.data) x *= scale;
    for (float& x : in.k.data) x *= scale;
    const std::uint64_t seed = 9, n = c.seq, d = c.head_dim, f = c.features;
    const std::vector<float> omega = performer_omega(d, f, seed);
    const auto log_phi = [&](const float* x, std::uint64_t feature) {  // log of exp(ωᵀx̃ − ‖x̃‖²/2)/√F
      const double s = std::pow(double(d), -0.25);
      double proj = 0, sq = 0;
      for (std::uint64_t col = 0; col < d; ++col)
        proj += omega[feature * d + col] * s * x[col], sq += s * x[col] * s * x[col];
      return proj - sq / 2 - 0.5 * std::log(double(f));
    };
    const auto expected = weighted_average(
        c, in.v.data, n, [&](auto, auto i) { return all_keys(causal ? i + 1 : n); },
        [&](auto g, auto i, auto j) {
          double k = 0;  // φ(q_i)·φ(k_j)
          for (std::uint64_t feature = 0; feature < f; ++feature)
            k += std::exp(log_phi(row(in.q.data, g, n, i, d), feature) + log_phi(row(in.k.data, g, n, j, d), feature));
          return std::log(k);
        });
    const std::vector<float> out = run_cpu(in, c, seed);
    if (scale == 1.0f || !causal) {
      CHECK(max_abs_diff(out, expected) < 1e-4);
      continue;
    }
    // causal ×8: an early query whose few keys' features all lie below fp32's normal range relative to the
    // group's largest key is reported as NaN (performer_row_scale), never a wrong number; every other row within
    // 1e-3 (exponents of order 10² carry 10² times fp32's rounding into each feature)
    std::uint64_t reported = 0;
    for (std::uint64_t r = 0; r < out.size() / d; ++r) {
      const std::vector<float> mine(out.begin() + r * d, out.begin() + (r + 1) * d);
      if (std::isnan(mine[0])) {
        ++reported;
        CHECK(std::all_of(mine.begin(), mine.end(), [](float x) { return std::isnan(x); }));
        continue;
      }
      CHECK(max_abs_diff(mine, std::vector<float>(expected.begin() + r * d, expected.begin() + (r + 1) * d)) < 1e-3);
    }
    CHECK(reported < out.size() / d / 4);
  }
}

TEST_CASE("Performer's features are orthogonal within a block and Gaussian-length", "[baselines]") {
  const std::uint64_t d = 8, f = 20;
  const std::vector<float> omega = performer_omega(d, f, 1);
  for (std::uint64_t a = 0; a < f; ++a)
    for (std::uint64_t b = a + 1; b < f && b / d == a / d; ++b) {
      const double cosine = dot(&omega[a * d], &omega[b * d], d) /
                            std::sqrt(dot(&omega[a * d], &omega[a * d], d) * dot(&omega[b * d], &omega[b * d], d));
      CHECK(std::abs(cosine) < 1e-5);
    }
  double mean_sq = 0;  // E‖ω‖² = d for ω ~ N(0, I_d)
  for (std::uint64_t a = 0; a < f; ++a) mean_sq += dot(&omega[a * d], &omega[a * d], d) / f;
  CHECK(mean_sq > 0.5 * d);
  CHECK(mean_sq < 1.5 * d);
}

TEST_CASE("Linformer equals softmax attention over E·K and E·V", "[baselines]") {
  AttentionConfig c = baseline_config(AttentionVariant::linformer, 1, 3, 45, 32);
  c.proj_k = 13;
  const AttentionInputs in = synthetic_inputs(c, 8);
  const std::uint64_t seed = 2, n = c.seq, d = c.head_dim, k = c.proj_k, groups = 3;
  const std::vector<float> e = linformer_projection(k, n, seed);
  std::vector<float> pk(groups * k * d, 0.0f), pv(groups * k * d, 0.0f);
  for (std::uint64_t g = 0; g < groups; ++g)
    for (std::uint64_t r = 0; r < k; ++r)
      for (std::uint64_t t = 0; t < n; ++t)
        for (std::uint64_t col = 0; col < d; ++col) {
          pk[(g * k + r) * d + col] += e[r * n + t] * in.k.data[(g * n + t) * d + col];
          pv[(g * k + r) * d + col] += e[r * n + t] * in.v.data[(g * n + t) * d + col];
        }
  const double scale = 1.0 / std::sqrt(double(d));
  const auto expected = weighted_average(
      c, pv, k, [&](auto, auto) { return all_keys(k); },
      [&](auto g, auto i, auto j) { return scale * dot(row(in.q.data, g, n, i, d), row(pk, g, k, j, d), d); });
  CHECK(max_abs_diff(run_cpu(in, c, seed), expected) < 1e-4);
}

TEST_CASE("Reformer equals softmax over the keys its buckets and chunks select, summed over rounds", "[baselines]") {
  for (std::uint64_t hashes : {1, 3}) {
    AttentionConfig c = baseline_config(AttentionVariant::reformer, 2, 1, 77, 16);
    c.hashes = hashes;
    c.chunk = 16;  // 5 chunks (the last of 13), 6 buckets, one chunk before with wrap-around
    const AttentionInputs in = synthetic_inputs(c, 6);
    const std::uint64_t seed = 5, n = c.seq, d = c.head_dim, buckets = reformer_buckets(c), half = buckets / 2;
    REQUIRE(buckets == 6);
    const std::vector<float> rotations = reformer_rotations(d, hashes, buckets, seed);
    std::vector<float> unit = in.q.data;
    for (std::uint64_t t = 0; t < 2 * n; ++t) {
      const double norm = std::sqrt(dot(&unit[t * d], &unit[t * d], d));
      for (std::uint64_t col = 0; col < d; ++col) unit[t * d + col] = static_cast<float>(unit[t * d + col] / norm);
    }
    // keys[g][i]: for every round, the tokens of i's chunk and of the chunk before it in bucket order
    std::vector<std::vector<std::vector<std::uint64_t>>> keys(2, std::vector<std::vector<std::uint64_t>>(n));
    for (std::uint64_t g = 0; g < 2; ++g)
      for (std::uint64_t r = 0; r < hashes; ++r) {
        std::vector<std::uint64_t> bucket(n);
        for (std::uint64_t t = 0; t < n; ++t) {
          std::vector<float> rotated(buckets);
          for (std::uint64_t b = 0; b < half; ++b) {
            float x = 0;
            for (std::uint64_t col = 0; col < d; ++col)
              x += unit[(g * n + t) * d + col] * rotations[col * hashes * half + r * half + b];
            rotated[b] = x, rotated[b + half] = -x;
          }
          bucket[t] = static_cast<std::uint64_t>(std::max_element(rotated.begin(), rotated.end()) - rotated.begin());
        }
        std::vector<std::uint64_t> order = all_keys(n);
        std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return bucket[a] < bucket[b]; });
        for (std::uint64_t pos = 0; pos < n; ++pos) {
          const std::uint64_t chunk = pos / 16, before = (chunk + 4) % 5;
          for (std::uint64_t other = 0; other < n; ++other)
            if ((other / 16 == chunk || other / 16 == before) && other != pos)  // own key masked
              keys[g][order[pos]].push_back(order[other]);
        }
      }
    const auto expected = weighted_average(
        c, in.v.data, n, [&](auto g, auto i) { return keys[g][i]; },
        [&](auto g, auto i, auto j) { return 0.25 * dot(row(in.q.data, g, n, i, d), row(unit, g, n, j, d), d); });
    CHECK(max_abs_diff(run_cpu(in, c, seed), expected) < 1e-5);
  }
}

TEST_CASE("Reformer: a token's own value reaches its output only when it has no other key", "[baselines]") {
  AttentionConfig c = baseline_config(AttentionVariant::reformer, 1, 1, 40, 8);
  c.chunk = 8;
  AttentionInputs in = synthetic_inputs(c, 2);
  const std::vector<float> before = run_cpu(in, c);
  const std::uint64_t token = 17, d = c.head_dim;
  for (std::uint64_t col = 0; col < d; ++col) in.v.data[token * d + col] += 100.0f;
  const std::vector<float> after = run_cpu(in, c);
  for (std::uint64_t col = 0; col < d; ++col) CHECK(after[token * d + col] == before[token * d + col]);
  CHECK(after != before);  // other tokens do see it

  c.seq = 1, c.chunk = 1;  // alone: the masked key is the only one, so the output is the token's value
  const AttentionInputs one = synthetic_inputs(c, 3);
  CHECK(max_abs_diff(run_cpu(one, c), one.v.data) < 1e-6);
}

TEST_CASE("LSA equals softmax within each window, padded tokens zero keys and values", "[baselines]") {
  AttentionConfig c = baseline_config(AttentionVariant::lsa, 2, 2, 5 * 7, 8);
  c.grid_height = 5, c.window = 3;  // 5×7 grid padded to 6×9: 2×3 windows, the last row and columns padded
  const AttentionInputs in = synthetic_inputs(c, 4);
  const std::uint64_t n = c.seq, d = c.head_dim, width = 7, padded_keys_total = 9;
  std::vector<float> expected(in.q.data.size());
  for (std::uint64_t g = 0; g < 4; ++g)
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t wy = i / width / 3, wx = i % width / 3;
      std::vector<std::uint64_t> keys;
      for (std::uint64_t j = 0; j < n; ++j)
        if (j / width / 3 == wy && j % width / 3 == wx) keys.push_back(j);
      const double padded = double(padded_keys_total - keys.size());  // score 0 → weight e^0, value 0
      double max = 0;                                                 // the padded keys' score
      for (std::uint64_t j : keys)
        max = std::max(max, dot(row(in.q.data, g, n, i, d), row(in.k.data, g, n, j, d), d) / std::sqrt(double(d)));
      double sum = padded * std::exp(-max);
      std::vector<double> acc(d, 0.0);
      for (std::uint64_t j : keys) {
        const double w =
            std::exp(dot(row(in.q.data, g, n, i, d), row(in.k.data, g, n, j, d), d) / std::sqrt(double(d)) - max);
        sum += w;
        for (std::uint64_t col = 0; col < d; ++col) acc[col] += w * row(in.v.data, g, n, j, d)[col];
      }
      for (std::uint64_t col = 0; col < d; ++col) expected[(g * n + i) * d + col] = static_cast<float>(acc[col] / sum);
    }
  CHECK(max_abs_diff(run_cpu(in, c), expected) < 1e-5);
}
