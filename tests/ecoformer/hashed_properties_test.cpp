// Mathematical properties of hashed attention: the packed-code dot product identity, positive similarities
// with c > b, agreement with the naive O(N²) form, and zero tokens normalising without NaN.
#include <catch2/catch.hpp>
#include <cmath>

#include "hash_math.hpp"
#include "hashed_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {
OpSink& null_sink() {
  static RecordingSink sink;
  sink.records.clear();
  return sink;
}

HashedRun run_cpu(const AttentionConfig& c, std::uint64_t seed, const HashedOptions& options = {}) {
  return run_hashed_detailed(synthetic_inputs(c, seed), c, Device::cpu, seed, null_sink(), options);
}
}  // namespace

TEST_CASE("h_i·h_j = b − 2·Hamming(h_i, h_j) on packed codes", "[hashed]") {
  for (unsigned bits : {1u, 7u, 16u, 17u, 32u, 33u, 63u, 64u}) {
    PackedCodes codes(64, bits);
    const std::uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    for (std::uint64_t i = 0; i < codes.size(); ++i) {
      const rng::Philox4x32 w = rng::random_words(bits, 3, i);
      codes.set_word(i, ((std::uint64_t{w.v[0]} << 32) | w.v[1]) & mask);
    }
    CHECK(codes.word_bytes() == (bits <= 16 ? 2u : bits <= 32 ? 4u : 8u));
    for (std::uint64_t i = 0; i < codes.size(); ++i)
      for (std::uint64_t j = 0; j < codes.size(); ++j) {
        int unpacked = 0, hamming = 0;
        for (unsigned r = 0; r < bits; ++r) {
          unpacked += codes.sign(i, r) * codes.sign(j, r);
          hamming += codes.sign(i, r) != codes.sign(j, r);
        }
        REQUIRE(code_dot(codes.word(i), codes.word(j), bits) == unpacked);
        REQUIRE(unpacked == static_cast<int>(bits) - 2 * hamming);
      }
  }
}

TEST_CASE("the bias c exceeds b: next integer or next power of two", "[hashed]") {
  using Bias = HashedOptions::Bias;
  CHECK(hash_bias(16, Bias::next_integer) == 17);
  CHECK(hash_bias(16, Bias::power_of_two) == 32);
  CHECK(hash_bias(15, Bias::power_of_two) == 16);
  CHECK(hash_bias(1, Bias::power_of_two) == 2);
  CHECK(hash_bias(64, Bias::next_integer) == 65);
  CHECK(hash_bias(64, Bias::power_of_two) == 128);
  CHECK_THROWS_AS(hash_bias(0, Bias::next_integer), Error);
  CHECK_THROWS_AS(hash_bias(65, Bias::power_of_two), Error);
}

TEST_CASE("hashed attention equals the naive O(N²) form, with every similarity positive", "[hashed]") {
  for (AttentionVariant v : kHashedVariants)
    for (HashedOptions::Bias bias : {HashedOptions::Bias::next_integer, HashedOptions::Bias::power_of_two}) {
      const AttentionConfig c = hashed_config(v, 2, 2, 37, 16, 12, 9);
      const AttentionInputs in = synthetic_inputs(c, 11);
      const HashedRun run = run_hashed_detailed(in, c, Device::cpu, 11, null_sink(), {bias});
      bool all_positive = false;
      const std::vector<double> naive = naive_hashed(run, in.v, &all_positive);
      INFO("variant " << name(v) << ", c = " << run.bias);
      CHECK(run.bias > static_cast<int>(run.params.bits));
      CHECK(all_positive);
      CHECK(relative_error(run.result.out.data, naive) <= 1e-5);
    }
}

TEST_CASE("causal hashed attention equals the masked naive form, and a token's code is its own", "[hashed]") {
  for (AttentionVariant v : kHashedVariants) {
    AttentionConfig c = hashed_config(v, 2, 2, 37, 16, 12, 9);
    c.causal = true;
    INFO("variant " << name(v));
    const AttentionInputs in = synthetic_inputs(c, 11);
    const HashedRun run = run_hashed_detailed(in, c, Device::cpu, 11, null_sink());
    bool all_positive = false;
    CHECK(relative_error(run.result.out.data, naive_hashed(run, in.v, &all_positive, true)) <= 1e-5);
    CHECK(all_positive);
    // The first query sees its own token alone: its output is its value.
    for (std::uint64_t k = 0; k < c.head_dim; ++k) CHECK(run.result.out.data[k] == Approx(in.v.data[k]).epsilon(1e-6));
    // Causal codes use no statistic of other tokens: the last token hashed alone (a decode step) gets the code it
    // got among all of them, so the prefix sums a decode step extends are the prefill's.
    if (!run.params.kernel()) continue;
    const std::uint64_t m = c.support, d = c.head_dim, n = c.seq;
    std::vector<float> x(in.q.data.begin(), in.q.data.begin() + static_cast<std::ptrdiff_t>(n * d));
    ecoformer::detail::l2_normalize_rows(x.data(), x.data(), n, d);
    const std::vector<float> all = ecoformer::detail::causal_kernel(x.data(), n, d, run.params.anchors.data(), m);
    const std::vector<float> last =
        ecoformer::detail::causal_kernel(&x[(n - 1) * d], 1, d, run.params.anchors.data(), m);
    for (std::uint64_t a = 0; a < m; ++a) CHECK(last[a] == all[(n - 1) * m + a]);
  }
}

TEST_CASE("causal hashed attention: a later token, or another batch entry, changes no earlier output", "[hashed]") {
  for (AttentionVariant v : kHashedVariants) {
    AttentionConfig c = hashed_config(v, 2, 2, 30, 8, 12, 9);
    c.causal = true;
    INFO("variant " << name(v));
    const AttentionInputs in = synthetic_inputs(c, 5);
    AttentionInputs changed = in;  // the last token of batch entry 0 and all of batch entry 1, q and v
    const std::uint64_t row = c.seq * c.head_dim, entry = c.heads * row;
    for (std::uint64_t h = 0; h < c.heads; ++h)
      for (std::uint64_t k = 0; k < c.head_dim; ++k) {
        changed.q.data[h * row + (c.seq - 1) * c.head_dim + k] += 3.0f;
        changed.v.data[h * row + (c.seq - 1) * c.head_dim + k] -= 2.0f;
      }
    for (std::uint64_t i = entry; i < 2 * entry; ++i) changed.q.data[i] *= -1.5f, changed.v.data[i] += 1.0f;
    const RunResult a = run_hashed(in, c, Device::cpu, 11, null_sink()),
                    b = run_hashed(changed, c, Device::cpu, 11, null_sink());
    for (std::uint64_t h = 0; h < c.heads; ++h)
      for (std::uint64_t i = 0; i < (c.seq - 1) * c.head_dim; ++i)  // batch entry 0's rows before its last
        CHECK(a.out.data[h * row + i] == b.out.data[h * row + i]);
    // one token appended (a run of N + 1 over the same first N): the first N rows as before
    AttentionConfig longer = c;
    longer.seq = c.seq + 1;
    const AttentionInputs more = synthetic_inputs(longer, 5);
    AttentionInputs first = in;  // `more`'s first N tokens of every (batch, head)
    for (Tensor* t : {&first.q, &first.k, &first.v}) {
      const Tensor& from = t == &first.q ? more.q : t == &first.k ? more.k : more.v;
      if (t->data.empty()) continue;
      for (std::uint64_t g = 0; g < c.batch * c.heads; ++g)
        std::copy_n(from.data.begin() + static_cast<std::ptrdiff_t>(g * longer.seq * c.head_dim), row,
                    t->data.begin() + static_cast<std::ptrdiff_t>(g * row));
    }
    const RunResult n_tokens = run_hashed(first, c, Device::cpu, 11, null_sink()),
                    n_plus_1 = run_hashed(more, longer, Device::cpu, 11, null_sink());
    for (std::uint64_t g = 0; g < c.batch * c.heads; ++g)
      for (std::uint64_t i = 0; i < row; ++i)
        CHECK(n_tokens.out.data[g * row + i] == n_plus_1.out.data[g * longer.seq * c.head_dim + i]);
  }
}

TEST_CASE("codes are packed in the narrowest word and fp-ecoformer codes stay below 1 in magnitude", "[hashed]") {
  for (std::uint64_t bits : {8u, 24u, 48u}) {
    const HashedRun run = run_cpu(hashed_config(AttentionVariant::klsh_ecoformer, 1, 1, 40, 16, bits, 10), 3);
    CHECK(run.hashes.codes.size() == 40);
    CHECK(run.hashes.codes.word_bytes() == (bits <= 16 ? 2u : bits <= 32 ? 4u : 8u));
  }
  const HashedRun fp = run_cpu(hashed_config(AttentionVariant::fp_ecoformer, 1, 2, 50, 32, 16, 10), 5);
  REQUIRE(fp.hashes.projections.size() == 2 * 50 * 16);
  for (float h : fp.hashes.projections) REQUIRE(std::fabs(h) < 1.0f);
}

TEST_CASE("zero tokens normalise to zero without NaN", "[hashed]") {
  for (AttentionVariant v : kHashedVariants) {
    INFO("variant " << name(v));
    const AttentionConfig c = hashed_config(v, 1, 1, 30, 16, 8, 6);
    AttentionInputs in = synthetic_inputs(c, 2);
    for (std::uint64_t t = 0; t < 30; t += 3)  // every third token is a zero vector
      std::fill_n(in.q.data.begin() + static_cast<std::ptrdiff_t>(t * 16), 16, 0.0f);
    const HashedRun some = run_hashed_detailed(in, c, Device::cpu, 2, null_sink());
    for (float x : some.result.out.data) REQUIRE(std::isfinite(x));
    std::fill(in.q.data.begin(), in.q.data.end(), 0.0f);  // all tokens zero: σ falls back to its minimum
    const HashedRun all = run_hashed_detailed(in, c, Device::cpu, 2, null_sink());
    for (float x : all.result.out.data) REQUIRE(std::isfinite(x));
  }
}
