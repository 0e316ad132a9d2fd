// CPU reference of hashed attention: every phase over all (batch, head) groups, then its report. Products
// with binary codes are bit-selected additions/subtractions on the packed words (BinaryCodes), never
// multiplications by ±1 floats.
#include <algorithm>
#include <chrono>
#include <vector>

#include <Eigen/Dense>

#include "hash_math.hpp"
#include "hashed_backends.hpp"
#include "hashed_common.hpp"

namespace ecosim::ecoformer::detail {

namespace {

/// Adds the wall time of each timed phase (kernel time only: reporting is not timed).
class PhaseClock {
 public:
  template <class F>
  void operator()(F&& phase) {
    const auto start = std::chrono::steady_clock::now();
    phase();
    total_ms_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  double total_ms() const { return total_ms_; }

 private:
  double total_ms_ = 0;
};

struct Shape {
  std::uint64_t groups, n, d, b, m, heads;
};

/// y [g][n][b]: the projections before the sign (or the signs' inputs x for bi-ecoformer).
std::vector<float> hash_projections(const HashedProblem& p, const Shape& s, const std::vector<float>& x,
                                    const Reporter& report, PhaseClock& clock) {
  std::vector<float> y(s.groups * s.n * s.b);
  const HashParams& params = p.params;
  if (params.kernel()) {
    std::vector<float> k(s.groups * s.n * s.m);
    std::vector<float> inv(s.groups);
    auto anchors = [&](std::uint64_t g) { return &params.anchors[(g % s.heads) * s.m * s.d]; };
    clock([&] {
      for (std::uint64_t g = 0; g < s.groups; ++g)
        squared_distances(&x[g * s.n * s.d], s.n, s.d, anchors(g), s.m, &k[g * s.n * s.m]);
    });
    report([=] { return stages::hash_part(p.config, stages::HashPart::distances); });
    // Causal: σ and the column means fixed beforehand from each head's anchors (parameters, not timed).
    std::vector<AnchorStatistics> fixed;
    for (std::uint64_t h = 0; p.config.causal && h < s.heads; ++h)
      fixed.push_back(anchor_statistics(&params.anchors[h * s.m * s.d], s.m, s.d));
    clock([&] {
      for (std::uint64_t g = 0; g < s.groups; ++g)
        inv[g] = fixed.empty() ? inverse_bandwidth(&k[g * s.n * s.m], s.n * s.m) : fixed[g % s.heads].inverse_bandwidth;
    });
    clock([&] {
      for (std::uint64_t g = 0; g < s.groups; ++g) rbf_values(&k[g * s.n * s.m], s.n * s.m, inv[g]);
    });
    report([=] { return stages::hash_part(p.config, stages::HashPart::kernel); });
    clock([&] {
      for (std::uint64_t g = 0; g < s.groups; ++g)
        if (fixed.empty())
          centre_columns(&k[g * s.n * s.m], s.n, s.m);
        else
          subtract_means(&k[g * s.n * s.m], s.n, fixed[g % s.heads].means);
    });
    report([=] { return stages::hash_part(p.config, stages::HashPart::centre); });
    clock([&] {
      for (std::uint64_t g = 0; g < s.groups; ++g)
        project(&k[g * s.n * s.m], s.n, s.m, &params.projection[(g % s.heads) * s.b * s.m], s.b, &y[g * s.n * s.b]);
    });
    report([=] { return stages::hash_part(p.config, stages::HashPart::projection); });
  } else if (params.variant == AttentionVariant::lsh_ecoformer) {
    clock([&] {
      for (std::uint64_t g = 0; g < s.groups; ++g)
        project(&x[g * s.n * s.d], s.n, s.d, &params.projection[(g % s.heads) * s.b * s.d], s.b, &y[g * s.n * s.b]);
    });
    report([=] { return stages::hash_part(p.config, stages::HashPart::projection); });
  } else {  // bi-ecoformer: the signs of the d = b normalised features
    y = x;
  }
  return y;
}

/// Packs bit r of token i as y_ir > 0 (sign(0) = −1).
PackedCodes pack_signs(const std::vector<float>& y, std::uint64_t tokens, unsigned bits) {
  PackedCodes codes(tokens, bits);
  with_code_word(bits, [&](auto word) {
    using Word = decltype(word);
    std::vector<Word>& words = codes.words<Word>();
    for (std::uint64_t i = 0; i < tokens; ++i) {
      Word w = 0;
      for (unsigned r = 0; r < bits; ++r)
        if (y[i * bits + r] > 0) w = static_cast<Word>(w | (Word{1} << r));
      words[i] = w;
    }
  });
  return codes;
}

/// Causal: out_i = (h_i·M_i + c·z_i) / (h_i·s_i + c·(i + 1)) with M_i, s_i, z_i the sums over the tokens j ≤ i,
/// in one pass per group that adds token i onto the sums before reading them; the stages are reported after it, in
/// their order. Codes is BinaryCodes or RealCodes.
template <class Codes>
void attend_causal(const Codes& codes, const HashedProblem& p, const Shape& s, float* out, const Reporter& report,
                   PhaseClock& clock) {
  using Sum = typename Codes::Sum;
  const std::uint64_t n = s.n, d = s.d, b = s.b;
  const auto unsigned_b = static_cast<unsigned>(b);
  const float* v = p.v.data.data();
  clock([&] {
    std::vector<Sum> sums(b);
    std::vector<float> z(d), ctx(b * d), num(d);
    for (std::uint64_t g = 0; g < s.groups; ++g) {
      std::fill(z.begin(), z.end(), 0.0f);
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t token = g * n + i;
        const float* value = &v[token * d];
        for (unsigned r = 0; r < unsigned_b; ++r) {
          sums[r] = i == 0 ? codes.code(token, r) : sums[r] + codes.code(token, r);
          for (std::uint64_t k = 0; k < d; ++k)
            ctx[r * d + k] =
                i == 0 ? codes.times(token, r, value[k]) : ctx[r * d + k] + codes.times(token, r, value[k]);
        }
        for (std::uint64_t k = 0; k < d; ++k) z[k] += value[k];
        Sum den = codes.times(token, 0, sums[0]);
        for (unsigned r = 1; r < unsigned_b; ++r) den += codes.times(token, r, sums[r]);
        den += static_cast<Sum>(p.bias) * static_cast<Sum>(i + 1);
        const float inv = 1.0f / static_cast<float>(den);
        for (std::uint64_t k = 0; k < d; ++k) {
          float acc = codes.times(token, 0, ctx[k]);
          for (unsigned r = 1; r < unsigned_b; ++r) acc += codes.times(token, r, ctx[r * d + k]);
          out[token * d + k] = (acc + static_cast<float>(p.bias) * z[k]) * inv;
        }
      }
    }
  });
  using stages::HashedStage;
  for (HashedStage stage : {HashedStage::code_sum, HashedStage::value_sum, HashedStage::context, HashedStage::numerator,
                            HashedStage::denominator, HashedStage::normalise})
    report([=] { return stages::hashed_stage(p.config, stage); });
}

/// out_i = (h_i·M + c·z) / (h_i·s + c·N) per group, phase by phase; Codes is BinaryCodes or RealCodes.
template <class Codes>
void attend(const Codes& codes, const HashedProblem& p, const Shape& s, float* out, const Reporter& report,
            PhaseClock& clock) {
  using Sum = typename Codes::Sum;
  const std::uint64_t g_count = s.groups, n = s.n, d = s.d, b = s.b;
  const auto unsigned_b = static_cast<unsigned>(b);
  const float* v = p.v.data.data();
  std::vector<Sum> sums(g_count * b);
  std::vector<float> bias_z(g_count * d), ctx(g_count * b * d);
  std::vector<Sum> den(g_count * n);

  clock([&] {
    for (std::uint64_t g = 0; g < g_count; ++g)
      for (unsigned r = 0; r < unsigned_b; ++r) {
        Sum acc = codes.code(g * n, r);
        for (std::uint64_t j = 1; j < n; ++j) acc += codes.code(g * n + j, r);
        sums[g * b + r] = acc;
      }
  });
  report([=] { return stages::hashed_stage(p.config, stages::HashedStage::code_sum); });
  clock([&] {
    for (std::uint64_t g = 0; g < g_count; ++g) {
      using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      const Eigen::Map<const RowMajor> values(v + g * n * d, static_cast<Eigen::Index>(n),
                                              static_cast<Eigen::Index>(d));
      Eigen::Map<Eigen::RowVectorXf>(&bias_z[g * d], static_cast<Eigen::Index>(d)) =
          static_cast<float>(p.bias) * values.colwise().sum();
    }
  });
  report([=] { return stages::hashed_stage(p.config, stages::HashedStage::value_sum); });
  clock([&] {
    for (std::uint64_t g = 0; g < g_count; ++g)  // token-major for locality; each sum runs over j in order
      for (std::uint64_t j = 0; j < n; ++j)
        for (unsigned r = 0; r < unsigned_b; ++r) {
          float* row = &ctx[(g * b + r) * d];
          const float* value = &v[(g * n + j) * d];
          for (std::uint64_t k = 0; k < d; ++k)
            row[k] = j == 0 ? codes.times(g * n, r, value[k]) : row[k] + codes.times(g * n + j, r, value[k]);
        }
  });
  report([=] { return stages::hashed_stage(p.config, stages::HashedStage::context); });
  clock([&] {
    for (std::uint64_t g = 0; g < g_count; ++g)
      for (std::uint64_t i = 0; i < n; ++i)
        for (std::uint64_t k = 0; k < d; ++k) {
          float acc = codes.times(g * n + i, 0, ctx[g * b * d + k]);
          for (unsigned r = 1; r < unsigned_b; ++r) acc += codes.times(g * n + i, r, ctx[(g * b + r) * d + k]);
          out[(g * n + i) * d + k] = acc + bias_z[g * d + k];
        }
  });
  report([=] { return stages::hashed_stage(p.config, stages::HashedStage::numerator); });
  clock([&] {
    const Sum bias_n = static_cast<Sum>(p.bias) * static_cast<Sum>(n);
    for (std::uint64_t g = 0; g < g_count; ++g)
      for (std::uint64_t i = 0; i < n; ++i) {
        Sum acc = codes.times(g * n + i, 0, sums[g * b]);
        for (unsigned r = 1; r < unsigned_b; ++r) acc += codes.times(g * n + i, r, sums[g * b + r]);
        den[g * n + i] = acc + bias_n;
      }
  });
  report([=] { return stages::hashed_stage(p.config, stages::HashedStage::denominator); });
  clock([&] {
    for (std::uint64_t row = 0; row < g_count * n; ++row) {
      const float inv = 1.0f / static_cast<float>(den[row]);
      for (std::uint64_t k = 0; k < d; ++k) out[row * d + k] *= inv;
    }
  });
  report([=] { return stages::hashed_stage(p.config, stages::HashedStage::normalise); });
}

}  // namespace

HashedOutput hashed_attention_cpu(const HashedProblem& p, const Reporter& report) {
  const AttentionConfig& c = p.config;
  const Shape s{c.batch * c.heads, c.seq, c.head_dim, c.code_bits(), c.support, c.heads};
  PhaseClock clock;
  HashedOutput result;
  result.out = Tensor{c.batch, c.heads, c.seq, c.head_dim, std::vector<float>(p.qk.data.size())};

  std::vector<float> x(p.qk.data.size());
  clock([&] { l2_normalize_rows(p.qk.data.data(), x.data(), s.groups * s.n, s.d); });
  report([=] { return stages::hashed_stage(p.config, stages::HashedStage::qk_normalize); });
  result.hashes.projections = hash_projections(p, s, x, report, clock);
  const auto bits = static_cast<unsigned>(s.b);
  if (p.params.binary()) {
    clock([&] { result.hashes.codes = pack_signs(result.hashes.projections, s.groups * s.n, bits); });
    report([=] { return stages::hash_part(p.config, stages::HashPart::sign); });
  }

  float* out = result.out.data.data();
  const auto run = [&](const auto& codes) {
    if (c.causal)
      attend_causal(codes, p, s, out, report, clock);
    else
      attend(codes, p, s, out, report, clock);
  };
  if (p.params.binary()) {
    with_code_word(bits, [&](auto word) {
      using Word = decltype(word);
      run(BinaryCodes<Word>{result.hashes.codes.words<Word>().data()});
    });
  } else {
    run(RealCodes{result.hashes.projections.data(), bits});
  }
  result.latency_ms = clock.total_ms();
  return result;
}

}  // namespace ecosim::ecoformer::detail
