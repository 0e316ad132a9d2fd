// The decode states of decode_states.hpp. Each mirrors its causal CPU reference's pass over a prefill: MSA the
// online softmax of one query over the cache (softmax_attention_cpu), Performer the Eigen updates of
// performer_cpu.cpp, the EcoFormer family the running sums of hashed_attention_cpu.cpp's attend_causal with its
// causal hash (hash_math.hpp) — so a step's output is the causal kernel's row for the same token.
#include "decode_states.hpp"

#include <cmath>
#include <optional>

#include "ecosim/kernels/gpu.hpp"
#include "ecosim/kernels/timing.hpp"
#include "ecosim/ops_counter/error.hpp"

#include "baseline_kernels.hpp"
#include "ecosim/ecoformer/hash_params.hpp"
#include "ecosim/ecoformer/hashed_attention.hpp"
#include "hash_math.hpp"
#include "performer_features.hpp"

namespace ecosim::ecoformer::detail {

namespace {

std::vector<double> widened(const std::vector<float>& x) { return {x.begin(), x.end()}; }

/// A CPU state, group by group: a token added, a query read; the prompt and a step loop over the groups.
class GroupState : public DecodeState {
 public:
  explicit GroupState(const AttentionConfig& c) : groups_(c.batch * c.heads), d_(c.head_dim) {}
  void add(const AttentionInputs& prompt) override {
    const std::uint64_t n = prompt.q.seq;
    for (std::uint64_t g = 0; g < groups_; ++g)
      for (std::uint64_t t = 0; t < n; ++t) {
        const std::uint64_t at = (g * n + t) * d_;
        add_token(g, &prompt.q.data[at], &prompt.k.data[at], &prompt.v.data[at]);
      }
  }
  RunResult step(const AttentionInputs& token) override {
    RunResult r{output_like(token.q), 0, Device::cpu};
    r.latency_ms = timing::steady_ms([&] {
      for (std::uint64_t g = 0; g < groups_; ++g) {
        const std::uint64_t at = g * d_;
        add_token(g, &token.q.data[at], &token.k.data[at], &token.v.data[at]);
        read_query(g, &token.q.data[at], &r.out.data[at]);
      }
    });
    return r;
  }

 protected:
  /// Adds the token (its q — the hashed variants' shared q/k —, k and v) of group g.
  virtual void add_token(std::uint64_t g, const float* q, const float* k, const float* v) = 0;
  /// The output of group g's query q over the state, which already holds q's own token (the last added to g).
  virtual void read_query(std::uint64_t g, const float* q, float* out) const = 0;

  const std::uint64_t groups_, d_;  // (batch, head) groups, head width
};

/// MSA: the keys and values so far, per group.
class KvCache final : public GroupState {
 public:
  explicit KvCache(const AttentionConfig& c) : GroupState(c), k_(groups_), v_(groups_) {}
  std::uint64_t bytes() const override {
    std::uint64_t values = 0;
    for (const auto& k : k_) values += 2 * k.size();
    return values * sizeof(float);
  }
  std::map<std::string, std::vector<double>> arrays() const override {
    std::vector<double> k, v;
    for (std::size_t g = 0; g < k_.size(); ++g) {
      k.insert(k.end(), k_[g].begin(), k_[g].end());
      v.insert(v.end(), v_[g].begin(), v_[g].end());
    }
    return {{"k", k}, {"v", v}};
  }

 private:
  void add_token(std::uint64_t g, const float*, const float* k, const float* v) override {
    k_[g].insert(k_[g].end(), k, k + d_);
    v_[g].insert(v_[g].end(), v, v + d_);
  }
  void read_query(std::uint64_t g, const float* q, float* out) const override {
    softmax_attention_cpu(q, k_[g].data(), v_[g].data(), out, 1, k_[g].size() / d_, d_, true);
  }
  std::vector<std::vector<float>> k_, v_;
};

/// Performer: S = Σ φ(k_j) v_jᵀ (F×d) and z = Σ φ(k_j) (F), per group.
class PerformerState final : public GroupState {
 public:
  PerformerState(const AttentionConfig& c, const KernelParameters& p)
      : GroupState(c),
        f_(c.features),
        omega_(p.at("omega")),
        scales_(feature_scales(d_, f_)),
        kv_(groups_, RowMatrix::Zero(static_cast<Eigen::Index>(f_), static_cast<Eigen::Index>(d_))),
        k_sum_(groups_, Eigen::RowVectorXf::Zero(static_cast<Eigen::Index>(f_))) {}
  std::uint64_t bytes() const override { return kv_.size() * (f_ * d_ + f_ + 1) * sizeof(float); }  // S, z, m
  std::map<std::string, std::vector<double>> arrays() const override {
    std::vector<double> kv, k_sum, stabiliser;
    for (std::size_t g = 0; g < kv_.size(); ++g) {
      kv.insert(kv.end(), kv_[g].data(), kv_[g].data() + kv_[g].size());
      k_sum.insert(k_sum.end(), k_sum_[g].data(), k_sum_[g].data() + k_sum_[g].size());
      stabiliser.push_back(stabiliser_[g].value_or(-INFINITY));
    }
    return {{"kv", kv}, {"k_sum", k_sum}, {"stabiliser", stabiliser}};
  }

  /// The keys' stabiliser (performer_features.hpp) is fixed by the first keys folded in — the prompt's largest
  /// exponent, else the first step's — and kept: the state's sums are at that scale.
  void add(const AttentionInputs& prompt) override {
    const std::uint64_t n = prompt.k.seq;
    for (std::uint64_t g = 0; g < groups_ && n > 0; ++g)
      if (!stabiliser_[g]) stabiliser_[g] = exponents(&prompt.k.data[g * n * d_], n).maxCoeff();
    GroupState::add(prompt);
  }

 private:
  void add_token(std::uint64_t g, const float*, const float* k, const float* v) override {
    const RowMatrix e = exponents(k, 1);
    if (!stabiliser_[g]) stabiliser_[g] = e.maxCoeff();
    const RowMatrix phi_k = key_features(e, *stabiliser_[g], scales_.feature);
    kv_[g].noalias() += phi_k.row(0).transpose() * row(v);
    k_sum_[g] += phi_k.row(0);
  }
  void read_query(std::uint64_t g, const float* q, float* out) const override {
    const RowMatrix phi_q = query_features(row(q), omega(), scales_);
    Eigen::Map<Eigen::RowVectorXf>(out, static_cast<Eigen::Index>(d_)) =
        (phi_q.row(0) * kv_[g]) * performer_row_scale(phi_q.row(0).dot(k_sum_[g]));
  }
  ConstMatrixMap row(const float* x) const { return ConstMatrixMap(x, 1, static_cast<Eigen::Index>(d_)); }
  ConstMatrixMap omega() const {
    return ConstMatrixMap(omega_.data(), static_cast<Eigen::Index>(f_), static_cast<Eigen::Index>(d_));
  }
  RowMatrix exponents(const float* x, std::uint64_t rows) const {
    return feature_exponents(ConstMatrixMap(x, static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(d_)), omega(),
                             scales_.input);
  }
  std::uint64_t f_;
  std::vector<float> omega_;
  FeatureScales scales_;
  std::vector<RowMatrix> kv_;
  std::vector<Eigen::RowVectorXf> k_sum_;
  std::vector<std::optional<float>> stabiliser_ = std::vector<std::optional<float>>(groups_);
};

/// The EcoFormer family: M = Σ h_j v_jᵀ (b×d), s = Σ h_j (b; Sum: int64 for ±1 codes, float for real ones),
/// z = Σ v_j (d) and the token count, per group; the codes from the causal hash of each token alone.
template <class Sum>
class HashedState final : public GroupState {
 public:
  HashedState(const AttentionConfig& c, const KernelParameters& p)
      : GroupState(c),
        b_(c.code_bits()),
        heads_(c.heads),
        params_(hash_params_from(p, c)),
        bias_(hash_bias(b_, HashedOptions{}.bias)),
        context_(groups_ * b_ * d_),
        sums_(groups_ * b_),
        values_(groups_ * d_),
        last_code_(groups_ * b_),
        count_(groups_) {
    for (std::uint64_t h = 0; params_.kernel() && h < heads_; ++h)
      fixed_.push_back(anchor_statistics(anchors(h), params_.support, d_));
  }
  std::uint64_t bytes() const override {  // s as the counter keeps it: int32 (±1 codes) or fp32, 4 bytes either way
    return (context_.size() + values_.size() + sums_.size()) * sizeof(float);
  }
  std::map<std::string, std::vector<double>> arrays() const override {
    return {
        {"context", widened(context_)}, {"code_sum", {sums_.begin(), sums_.end()}}, {"value_sum", widened(values_)}};
  }

 private:
  void add_token(std::uint64_t g, const float* q, const float*, const float* v) override {
    float* h = &last_code_[g * b_];
    code(g % heads_, q, h);
    for (std::uint64_t r = 0; r < b_; ++r) {  // in attend_causal's order: per bit its sum, then its row of M
      sums_[g * b_ + r] += static_cast<Sum>(h[r]);
      float* m = &context_[(g * b_ + r) * d_];
      for (std::uint64_t k = 0; k < d_; ++k) m[k] = m[k] + h[r] * v[k];
    }
    for (std::uint64_t k = 0; k < d_; ++k) values_[g * d_ + k] += v[k];
    ++count_[g];
  }
  void read_query(std::uint64_t g, const float*, float* out) const override {
    const float* h = &last_code_[g * b_];
    Sum den = static_cast<Sum>(h[0]) * sums_[g * b_];
    for (std::uint64_t r = 1; r < b_; ++r) den += static_cast<Sum>(h[r]) * sums_[g * b_ + r];
    den += static_cast<Sum>(bias_) * static_cast<Sum>(count_[g]);
    const float inv = 1.0f / static_cast<float>(den);
    for (std::uint64_t k = 0; k < d_; ++k) {
      float acc = h[0] * context_[g * b_ * d_ + k];
      for (std::uint64_t r = 1; r < b_; ++r) acc += h[r] * context_[(g * b_ + r) * d_ + k];
      out[k] = (acc + static_cast<float>(bias_) * values_[g * d_ + k]) * inv;
    }
  }
  const float* anchors(std::uint64_t head) const { return &params_.anchors[head * params_.support * d_]; }
  /// The token's code (±1 for the binary variants, the real projections for fp-ecoformer) from its causal hash.
  void code(std::uint64_t head, const float* q, float* h) const {
    std::vector<float> x(q, q + d_), y(b_);
    l2_normalize_rows(x.data(), x.data(), 1, d_);
    if (params_.kernel()) {
      const std::vector<float> k = causal_kernel(x.data(), 1, d_, anchors(head), params_.support, fixed_[head]);
      project(k.data(), 1, params_.support, &params_.projection[head * b_ * params_.support], b_, y.data());
    } else if (!params_.projection.empty()) {  // lsh-ecoformer: hyperplanes on the d features
      project(x.data(), 1, d_, &params_.projection[head * b_ * d_], b_, y.data());
    } else {  // bi-ecoformer: the signs of the features themselves
      y = x;
    }
    for (std::uint64_t r = 0; r < b_; ++r) h[r] = params_.binary() ? (y[r] > 0 ? 1.0f : -1.0f) : y[r];
  }
  std::uint64_t b_, heads_;
  HashParams params_;
  std::int32_t bias_;
  std::vector<AnchorStatistics> fixed_;  // per head (kernel variants)
  std::vector<float> context_;
  std::vector<Sum> sums_;
  std::vector<float> values_, last_code_;
  std::vector<std::uint64_t> count_;
};

}  // namespace

std::unique_ptr<DecodeState> make_decode_state(const AttentionConfig& c, const KernelParameters& parameters,
                                               Device device) {
  if (device == Device::cuda) gpu::require("decoding on the GPU");  // a build or a machine without one: an error
#if ECOSIM_HAS_CUDA
  if (device == Device::cuda) {
    if (c.variant == AttentionVariant::msa) return msa_decode_state_cuda(c);
    if (c.variant == AttentionVariant::performer) return performer_decode_state_cuda(c, parameters);
    if (is_hashed(c.variant)) return hashed_decode_state_cuda(c, parameters);
  }
#endif
  if (c.variant == AttentionVariant::msa) return std::make_unique<KvCache>(c);
  if (c.variant == AttentionVariant::performer) return std::make_unique<PerformerState>(c, parameters);
  if (is_hashed(c.variant)) {
    if (stages::binary_codes(c.variant)) return std::make_unique<HashedState<std::int64_t>>(c, parameters);
    return std::make_unique<HashedState<float>>(c, parameters);
  }
  throw Error(std::string(name(c.variant)) +
              ": decoding keeps a K/V cache (msa) or a recurrent state (performer, the EcoFormer family); this "
              "variant has neither");
}

}  // namespace ecosim::ecoformer::detail
