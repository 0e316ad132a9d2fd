// CPU reference of Reformer-style LSH attention (shared QK: keys are the L2-normalised queries): each round
// hashes the keys by a random rotation (bucket = argmax over [xR, −xR]), sorts tokens by bucket (stable,
// ties by position), attends within chunks of sorted tokens to the own chunk and `before` preceding ones
// (wrapping around) with the token's own key masked (kReformerSelfScore), and the rounds are combined by
// their softmax normalisers. No correction for a key met in several rounds: the op counter counts none.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "baseline_kernels.hpp"
#include "eigen_views.hpp"
#include "hashed_common.hpp"

namespace ecosim::ecoformer::detail {

namespace {
constexpr float kNormEpsilon = 1e-12f;

/// One round's result per token in original order: unnormalised numerator, normaliser and row maximum.
struct RoundResult {
  RowMatrix numerator;
  Eigen::VectorXf normaliser, max;
};

std::vector<std::uint32_t> buckets_of_round(const RowMatrix& rotated, std::uint64_t round, std::uint64_t half) {
  std::vector<std::uint32_t> bucket(static_cast<std::size_t>(rotated.rows()));
  for (Eigen::Index t = 0; t < rotated.rows(); ++t) {
    std::uint32_t best = 0;
    float best_value = rotated(t, static_cast<Eigen::Index>(round * half));
    for (std::uint64_t b = 1; b < 2 * half; ++b) {  // [xR, −xR]: first max wins
      const float x = rotated(t, static_cast<Eigen::Index>(round * half + b % half));
      const float value = b < half ? x : -x;
      if (value > best_value) best = static_cast<std::uint32_t>(b), best_value = value;
    }
    bucket[static_cast<std::size_t>(t)] = best;
  }
  return bucket;
}

RoundResult attend_round(const stages::ReformerPlan& p, const ConstMatrixMap& q, const RowMatrix& keys,
                         const ConstMatrixMap& v, const std::vector<std::uint32_t>& bucket) {
  std::vector<std::uint32_t> order(p.seq);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return bucket[a] < bucket[b]; });
  const Eigen::Index d = q.cols();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  RoundResult r{RowMatrix(q.rows(), d), Eigen::VectorXf(q.rows()), Eigen::VectorXf(q.rows())};
  for (std::uint64_t c = 0; c < p.chunks; ++c) {
    const auto qn = static_cast<Eigen::Index>(p.size(c)), kn = static_cast<Eigen::Index>(p.keys(c));
    RowMatrix qc(qn, d), kc(kn, d), vc(kn, d);
    for (Eigen::Index i = 0; i < qn; ++i) qc.row(i) = q.row(order[p.start(c) + static_cast<std::uint64_t>(i)]);
    Eigen::Index row = 0;
    for (std::uint64_t j = 0; j <= p.before; ++j) {
      const std::uint64_t kc_index = p.key_chunk(c, j);
      for (std::uint64_t t = 0; t < p.size(kc_index); ++t, ++row) {
        kc.row(row) = keys.row(order[p.start(kc_index) + t]);
        vc.row(row) = v.row(order[p.start(kc_index) + t]);
      }
    }
    RowMatrix s = qc * kc.transpose();
    s *= scale;
    for (Eigen::Index i = 0; i < qn; ++i) s(i, i) = kReformerSelfScore;  // own chunk first: key i is query i
    const Eigen::VectorXf m = s.rowwise().maxCoeff();
    s = (s.colwise() - m).array().exp().matrix();
    const Eigen::VectorXf l = s.rowwise().sum();
    const RowMatrix o = s * vc;
    for (Eigen::Index i = 0; i < qn; ++i) {
      const std::uint32_t token = order[p.start(c) + static_cast<std::uint64_t>(i)];
      r.numerator.row(token) = o.row(i);
      r.normaliser(token) = l(i);
      r.max(token) = m(i);
    }
  }
  return r;
}
}  // namespace

Tensor reformer_cpu(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                    const Reporter& report) {
  const stages::ReformerPlan p = stages::reformer_plan(c);
  const std::uint64_t g = groups(in.q), d = c.head_dim, half = p.buckets / 2;
  const std::vector<float>& rotation_values = parameters.at("rotations");
  const ConstMatrixMap rotations(rotation_values.data(), static_cast<Eigen::Index>(d),
                                 static_cast<Eigen::Index>(p.rounds * half));
  std::vector<RowMatrix> keys(g);
  std::vector<std::vector<std::vector<std::uint32_t>>> buckets(g);
  for (std::uint64_t i = 0; i < g; ++i) {
    const ConstMatrixMap q = group(in.q, i);
    const Eigen::VectorXf norm = q.rowwise().norm();
    const Eigen::VectorXf inverse_norm = norm.cwiseMax(kNormEpsilon).cwiseInverse();
    keys[i] = inverse_norm.asDiagonal() * q;
    for (Eigen::Index r = 0; r < norm.size(); ++r)  // Σq² past FLT_MAX (|q| ≳ 1e19): still a unit key
      if (!std::isfinite(norm[r])) unit_row_of_huge(q.row(r).data(), keys[i].row(r).data(), q.cols());
    const RowMatrix rotated = keys[i] * rotations;
    for (std::uint64_t r = 0; r < p.rounds; ++r) buckets[i].push_back(buckets_of_round(rotated, r, half));
  }
  report([=] { return stages::reformer_hashing(c); });
  std::vector<std::vector<RoundResult>> rounds(g);
  for (std::uint64_t i = 0; i < g; ++i)
    for (std::uint64_t r = 0; r < p.rounds; ++r)
      rounds[i].push_back(attend_round(p, group(in.q, i), keys[i], group(in.v, i), buckets[i][r]));
  report([=] { return stages::reformer_chunk_attention(c); });
  Tensor out = output_like(in.q);
  for (std::uint64_t i = 0; i < g; ++i) {
    const std::vector<RoundResult>& rs = rounds[i];
    Eigen::VectorXf global_max = rs[0].max;
    for (const RoundResult& r : rs) global_max = global_max.cwiseMax(r.max);
    RowMatrix numerator = RowMatrix::Zero(static_cast<Eigen::Index>(c.seq), static_cast<Eigen::Index>(d));
    Eigen::VectorXf normaliser = Eigen::VectorXf::Zero(static_cast<Eigen::Index>(c.seq));
    for (const RoundResult& r : rs) {
      const Eigen::VectorXf w = (r.max - global_max).array().exp().matrix();
      numerator += w.asDiagonal() * r.numerator;
      normaliser += w.cwiseProduct(r.normaliser);
    }
    group(out, i) = normaliser.cwiseInverse().asDiagonal() * numerator;
  }
  report([=] { return stages::reformer_combine(c); });
  return out;
}

}  // namespace ecosim::ecoformer::detail
