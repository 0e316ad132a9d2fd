// Host preparation of the hashed variants' per-head parameters: anchors and projections drawn with Philox
// (streams 0x200.., apart from the inputs' 0–2 and the baselines' 0x100..), learned projections for
// ecoformer / fp-ecoformer.
#include "ecosim/ecoformer/hash_params.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "baseline_kernels.hpp"
#include "ecosim/kernels/philox.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "hash_math.hpp"

namespace ecosim::ecoformer {

namespace {

constexpr std::uint32_t kAnchorStream = 0x200, kProjectionStream = 0x201, kLearningSampleStream = 0x202;

/// `count` distinct positions of [0, pool), a partial Fisher–Yates shuffle driven by Philox; draws of
/// head h use indices h·2^40 + i so every head has its own sequence.
std::vector<std::uint64_t> distinct_positions(std::uint64_t count, std::uint64_t pool, std::uint64_t seed,
                                              std::uint32_t stream, std::uint64_t head) {
  std::vector<std::uint64_t> order(pool);
  std::iota(order.begin(), order.end(), std::uint64_t{0});
  for (std::uint64_t i = 0; i < count; ++i) {
    const rng::Philox4x32 w = rng::random_words(seed, stream, (head << 40) + i);
    const std::uint64_t r = ((static_cast<std::uint64_t>(w.v[0]) << 32) | w.v[1]) % (pool - i);
    std::swap(order[i], order[i + r]);
  }
  order.resize(count);
  return order;
}

/// The L2-normalised tokens of head h at positions p of batch × seq, row after row.
std::vector<float> normalized_tokens(const Tensor& qk, std::uint64_t head,
                                     const std::vector<std::uint64_t>& positions) {
  const std::uint64_t d = qk.dim;
  std::vector<float> x(positions.size() * d);
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const std::uint64_t batch = positions[i] / qk.seq, token = positions[i] % qk.seq;
    const float* src = &qk.data[((batch * qk.heads + head) * qk.seq + token) * d];
    std::copy(src, src + d, &x[i * d]);
  }
  detail::l2_normalize_rows(x.data(), x.data(), positions.size(), d);
  return x;
}

/// `count` unit vectors of width d drawn as Philox normals (indices head·2^40 + …), each normalised: a causal
/// form's anchors and learning sample, fixed beforehand — no token of the sequence, so none later than a query,
/// enters its code.
std::vector<float> random_unit_vectors(std::uint64_t count, std::uint64_t d, std::uint64_t seed, std::uint32_t stream,
                                       std::uint64_t head) {
  std::vector<float> x(count * d);
  for (std::uint64_t i = 0; i < x.size(); ++i) x[i] = rng::normal(seed, stream, (head << 40) + i);
  detail::l2_normalize_rows(x.data(), x.data(), count, d);
  return x;
}

/// Scales each row of w (rows × cols) to unit ℓ1 norm (a zero row, probability 0 with Gaussian draws, stays).
void unit_l1_rows(float* w, std::uint64_t rows, std::uint64_t cols) {
  for (std::uint64_t r = 0; r < rows; ++r) {
    double norm = 0;
    for (std::uint64_t c = 0; c < cols; ++c) norm += std::fabs(w[r * cols + c]);
    if (norm > 0)
      for (std::uint64_t c = 0; c < cols; ++c) w[r * cols + c] = static_cast<float>(w[r * cols + c] / norm);
  }
}

}  // namespace

HashParams make_hash_params(const Tensor& qk, const AttentionConfig& config, std::uint64_t seed) {
  config.validate();
  if (!is_hashed(config.variant))
    throw Error("variant '" + std::string(name(config.variant)) + "' is not a hashed attention variant");
  detail::require_runnable(config);  // e.g. anchors drawn from more tokens than there are
  if (qk.batch != config.batch || qk.heads != config.heads || qk.seq != config.seq || qk.dim != config.head_dim ||
      qk.data.size() != checked_product({qk.batch, qk.heads, qk.seq, qk.dim}))
    throw Error("hash parameters: the q/k tensor does not have the configured shape");

  HashParams p{config.variant, config.heads, config.head_dim, config.code_bits(), config.support, {}, {}, {}};
  const std::uint64_t h_count = p.heads, d = p.dim, b = p.bits, m = p.support;
  const std::uint64_t pool = checked_mul(qk.batch, qk.seq);
  if (!stages::projects_to_bits(p.variant)) return p;

  const std::uint64_t cols = p.kernel() ? m : d;
  p.projection.resize(checked_product({h_count, b, cols}));
  for (std::uint64_t i = 0; i < p.projection.size(); ++i) p.projection[i] = rng::normal(seed, kProjectionStream, i);
  // Non-causal: anchors and the learning sample are tokens of the input (the paper's data-dependent choice).
  // Causal: drawn beforehand, independent of the sequence, so a token's code and every earlier output stay what
  // they are whatever comes later (tokens of the input would let later ones shape earlier codes).
  const auto sample = [&](std::uint64_t count, std::uint32_t stream, std::uint64_t h) {
    return config.causal ? random_unit_vectors(count, d, seed, stream, h)
                         : normalized_tokens(qk, h, distinct_positions(count, pool, seed, stream, h));
  };
  if (p.kernel()) {
    p.anchors.resize(checked_product({h_count, m, d}));
    for (std::uint64_t h = 0; h < h_count; ++h) {
      const std::vector<float> a = sample(m, kAnchorStream, h);
      std::copy(a.begin(), a.end(), p.anchors.begin() + static_cast<std::ptrdiff_t>(h * m * d));
    }
  }
  const bool learned = p.variant == AttentionVariant::ecoformer || p.variant == AttentionVariant::fp_ecoformer;
  for (std::uint64_t h = 0; learned && h < h_count; ++h) {
    // (causal: as many as always — a sample sized by the sequence would change with every token appended)
    const std::uint64_t n = config.causal ? kLearningTokens : std::min(kLearningTokens, pool);
    const std::vector<float> x = sample(n, kLearningSampleStream, h);
    const float* anchors = &p.anchors[h * m * d];  // learned on the features the hash will compute
    const std::vector<float> features = config.causal ? detail::causal_kernel(x.data(), n, d, anchors, m)
                                                      : detail::centred_kernel(x.data(), n, d, anchors, m);
    float* w = &p.projection[h * b * m];
    LearnedProjection learnt =
        learn_ksh_projection(features, n, m, similarity_targets(x, n, d), std::vector<float>(w, w + b * m));
    std::copy(learnt.weights.begin(), learnt.weights.end(), w);
    p.learning.push_back(std::move(learnt));
  }
  unit_l1_rows(p.projection.data(), h_count * b, cols);
  return p;
}

HashParams hash_params_from(const KernelParameters& parameters, const AttentionConfig& config) {
  check_kernel_parameters(parameters, config);
  if (!is_hashed(config.variant))
    throw Error("variant '" + std::string(name(config.variant)) + "' is not a hashed attention variant");
  const auto array = [&](const char* key) {
    const auto it = parameters.find(key);
    return it == parameters.end() ? std::vector<float>{} : it->second;
  };
  return HashParams{config.variant, config.heads,     config.head_dim,     config.code_bits(),
                    config.support, array("anchors"), array("projection"), {}};
}

}  // namespace ecosim::ecoformer
