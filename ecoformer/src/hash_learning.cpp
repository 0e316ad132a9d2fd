// KSH bit-by-bit learning with a tanh relaxation (Eigen, double precision; CPU only: learning prepares
// parameters once, it is not part of the attention layer's inference and is not reported to an OpSink).
#include "ecosim/ecoformer/hash_learning.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::ecoformer {

namespace {

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vector = Eigen::VectorXd;

/// h = sign(K w) with sign(0) = −1.
Vector signs(const Matrix& k, const Vector& w) {
  return (k * w).unaryExpr([](double y) { return y > 0 ? 1.0 : -1.0; });
}

/// ‖R − h hᵀ‖² = ‖R‖² − 2 hᵀRh + n² for h ∈ {−1,+1}^n.
double loss_with(const Matrix& r, double r_norm2, const Vector& h) {
  const double n = static_cast<double>(h.size());
  return r_norm2 - 2.0 * h.dot(r * h) + n * n;
}

}  // namespace

std::vector<float> similarity_targets(const std::vector<float>& x, std::uint64_t n, std::uint64_t d,
                                      std::uint64_t top_k) {
  if (n == 0 || d == 0 || x.size() != n * d) throw Error("similarity targets: token matrix is empty or misshapen");
  const std::uint64_t k = std::min(top_k, n / 2);
  const Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> tokens(
      x.data(), static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  const Eigen::MatrixXf sim = tokens * tokens.transpose();
  std::vector<float> s(n * n, 0.0f);
  std::vector<std::uint64_t> order(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    std::iota(order.begin(), order.end(), 0);
    const auto row = static_cast<Eigen::Index>(i);
    std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
      return sim(row, static_cast<Eigen::Index>(a)) > sim(row, static_cast<Eigen::Index>(b));
    });
    for (std::uint64_t j = 0; j < k; ++j) {
      s[i * n + order[j]] = 1.0f;
      s[i * n + order[n - 1 - j]] = -1.0f;
    }
  }
  return s;
}

LearnedProjection learn_ksh_projection(const std::vector<float>& kernel, std::uint64_t n, std::uint64_t m,
                                       const std::vector<float>& targets, const std::vector<float>& initial,
                                       const LearningOptions& options) {
  if (n == 0 || m == 0 || kernel.size() != n * m) throw Error("hash learning: kernel features are not n×m");
  if (targets.size() != n * n) throw Error("hash learning: targets are not n×n");
  if (initial.empty() || initial.size() % m != 0 || initial.size() / m > 64)
    throw Error("hash learning: initial weights are not b×m with b in 1..64");
  const auto rows = static_cast<Eigen::Index>(n), cols = static_cast<Eigen::Index>(m);
  const std::uint64_t bits = initial.size() / m;

  const Matrix k =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(kernel.data(), rows, cols)
          .cast<double>();
  Matrix r = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(targets.data(),
                                                                                                     rows, rows)
                 .cast<double>() *
             static_cast<double>(bits);

  LearnedProjection out{initial, {}};
  for (std::uint64_t bit = 0; bit < bits; ++bit) {
    const double r_norm2 = r.squaredNorm();
    const Matrix r_sym = r + r.transpose();
    const Vector w0 = Eigen::Map<const Eigen::VectorXf>(&initial[bit * m], cols).cast<double>();
    BitLearning report;
    report.loss_before = r_norm2;
    report.loss_initial = loss_with(r, r_norm2, signs(k, w0));

    // Relaxed ascent on f(w) = tᵀ R t, t = tanh(K w): ∇f = Kᵀ(((R + Rᵀ) t) ∘ (1 − t²)). Steps are
    // normalised to `step`·‖w‖ (only the direction of w matters for the sign), with heavy-ball momentum.
    Vector w = w0, velocity = Vector::Zero(cols), best = w0;
    double best_loss = report.loss_initial;
    for (unsigned it = 0; it < options.iterations; ++it) {
      const Vector t = (k * w).array().tanh().matrix();
      const Vector g = k.transpose() * ((r_sym * t).array() * (1.0 - t.array().square())).matrix();
      const double g_norm = g.norm(), w_norm = w.norm();
      if (!(g_norm > 0) || !(w_norm > 0)) break;
      velocity = options.momentum * velocity + (options.step * w_norm / g_norm) * g;
      w += velocity;
      const Vector stored = w.cast<float>().cast<double>();  // the weights as they will be kept, in fp32
      const double loss = loss_with(r, r_norm2, signs(k, stored));
      if (loss < best_loss) {
        best_loss = loss;
        best = stored;
      }
    }
    report.loss_learned = best_loss;
    report.accepted = best_loss < report.loss_initial;
    const Vector& chosen = report.accepted ? best : w0;
    for (std::uint64_t a = 0; a < m; ++a)
      out.weights[bit * m + a] = static_cast<float>(chosen[static_cast<Eigen::Index>(a)]);
    const Vector h = signs(k, chosen);
    r -= h * h.transpose();
    out.bits.push_back(report);
  }
  return out;
}

}  // namespace ecosim::ecoformer
