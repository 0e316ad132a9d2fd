// CUDA Performer FAVOR+: per-row ‖x̃‖²/2, ωᵀx̃ by the shared batched GEMM (ω drawn on the host), the positive
// features exp(ωᵀx̃ − ‖x̃‖²/2 − m)/√F in place (m the stabiliser of performer_features.hpp: a query row's largest
// exponent, a group's keys' largest), then φ(K)ᵀV, Σ_j φ(k_j), numerator, denominator and division.
// Causal (config.causal): the prefix sums of the CPU reference in chunks of kCausalChunk tokens — each chunk's
// φ(K)ᵀV and Σφ(k) summed over the chunks before it (an exclusive scan over chunks), and within the chunk the
// scores φ(Q)φ(K)ᵀ masked above the diagonal; the sequence is padded to whole chunks with zero rows, which come
// after every real query and so never enter its sums. Decoding (performer_decode_state_cuda): S = Σφ(k)vᵀ and
// z = Σφ(k) on the device, each step folding in its token and reading its query.
#include <cmath>
#include <memory>

#include "baseline_kernels.hpp"
#include "batched_gemm.cuh"
#include "decode_states.hpp"
#include "ecosim/kernels/cuda_support.cuh"
#include "performer_row_scale.hpp"
#include "running_sums.cuh"

namespace ecosim::ecoformer::detail {

namespace {
constexpr unsigned kThreads = 256;
constexpr std::uint64_t kCausalChunk = 64;  // tokens a chunk of the causal form

__global__ void scale_elements(const float* x, float* scaled, long long count, float scale) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) scaled[i] = x[i] * scale;
}

__global__ void half_squared_norms(const float* x, float* half_sq_norm, long long rows, int d) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < d; ++c) sum += x[r * d + c] * x[r * d + c];
  half_sq_norm[r] = sum * 0.5f;
}

/// The exponents ωᵀx̃ − ‖x̃‖²/2 in place, and each row's largest.
__global__ void exponents_and_row_maxima(float* projected, const float* half_sq_norm, float* row_max, long long rows,
                                         long long f) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float* e = projected + r * f;
  float largest = -INFINITY;
  for (long long c = 0; c < f; ++c) {
    e[c] -= half_sq_norm[r];
    largest = fmaxf(largest, e[c]);
  }
  row_max[r] = largest;
}

/// The largest of each group's first `valid` row maxima (groups of `rows` rows: the rest are padding): a block a
/// group, its threads striding over the rows, then a tree in shared memory (a maximum is exact in any order).
__global__ void group_maxima(const float* row_max, float* group_max, long long rows, long long valid) {
  __shared__ float largest[kThreads];
  const float* group = row_max + static_cast<long long>(blockIdx.x) * rows;
  float m = -INFINITY;
  for (long long r = threadIdx.x; r < valid; r += blockDim.x) m = fmaxf(m, group[r]);
  largest[threadIdx.x] = m;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) largest[threadIdx.x] = fmaxf(largest[threadIdx.x], largest[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) group_max[blockIdx.x] = largest[0];
}

/// A decode state's stabilisers, each fixed by the first keys folded in: `candidate` where none is set yet.
__global__ void keep_first(float* stabiliser, const float* candidate, long long groups) {
  const long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g < groups && stabiliser[g] == -INFINITY) stabiliser[g] = candidate[g];
}

/// φ = exp(e − m)·feature_scale in place, m one stabiliser per `rows_per_stabiliser` rows.
__global__ void positive_features(float* exponents, const float* stabiliser, long long rows, long long f,
                                  long long rows_per_stabiliser, float feature_scale) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows * f) exponents[i] = expf(exponents[i] - stabiliser[i / f / rows_per_stabiliser]) * feature_scale;
}

__global__ void column_sums(const float* x, float* sums, long long groups, long long rows, long long cols) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= groups * cols) return;
  const float* base = x + (i / cols) * rows * cols + i % cols;
  float sum = 0.0f;
#pragma unroll 8  // the loads issued eight at a time, the sum still in order
  for (long long r = 0; r < rows; ++r) sum += base[r * cols];  // in order from row 0, as the CPU's colwise sum
  sums[i] = sum;
}

__global__ void divide_rows(const float* numerator, const float* denominator, float* out, long long rows, int d) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float inverse = performer_row_scale(denominator[r]);
  for (int c = 0; c < d; ++c) out[r * d + c] = numerator[r * d + c] * inverse;
}

/// x (g groups of n rows of width d) into padded (g groups of padded_n rows), the extra rows zero.
__global__ void pad_rows(const float* x, float* padded, long long g, long long n, long long padded_n, int d) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g * padded_n * d) return;
  const long long group = i / (padded_n * d), row = i / d % padded_n, col = i % d;
  padded[i] = row < n ? x[(group * n + row) * d + col] : 0.0f;
}

/// scores holds `blocks` chunk × chunk matrices: zero above the diagonal (a later key), and each row's sum.
__global__ void mask_later_keys(float* scores, float* row_sums, long long blocks, int chunk) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= blocks * chunk) return;
  float* row = scores + r * chunk;
  const int i = static_cast<int>(r % chunk);
  float sum = 0.0f;
  for (int j = 0; j < chunk; ++j) {
    if (j > i) row[j] = 0.0f;
    sum += row[j];
  }
  row_sums[r] = sum;
}

/// out's n rows of each group from the padded rows: (within + before) / (within_sum + before_sum).
__global__ void combine_causal(const float* within, const float* before, const float* within_sum,
                               const float* before_sum, float* out, long long g, long long n, long long padded_n,
                               int d) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= g * n) return;
  const long long p = r / n * padded_n + r % n;  // the row in the padded layout
  const float inverse = performer_row_scale(within_sum[p] + before_sum[p]);
  for (int c = 0; c < d; ++c) out[r * d + c] = (within[p * d + c] + before[p * d + c]) * inverse;
}

long long ll(std::uint64_t x) { return static_cast<long long>(x); }

/// The device scratch of featurising g groups of n rows of width d.
struct FeatureScratch {
  FeatureScratch(std::uint64_t g, std::uint64_t n, std::uint64_t d)
      : scaled(g * n * d), half_sq_norm(g * n), row_max(g * n), group_max(g) {}
  cuda::DeviceBuffer<float> scaled, half_sq_norm, row_max, group_max;
};

/// Queries take their rows' stabilisers; keys their group's, over its first `valid_rows` rows (the rest padding),
/// or — a decode state (`fixed`, per group) — the one fixed by the first keys folded in.
enum class Stabiliser { per_row, per_group };

/// φ(x) for the g·n rows of x into phi (g·n·F).
void features(const float* x, FeatureScratch& s, const cuda::DeviceBuffer<float>& omega, float* phi, std::uint64_t g,
              std::uint64_t n, std::uint64_t d, std::uint64_t f, Stabiliser stabiliser, std::uint64_t valid_rows,
              float* fixed = nullptr) {
  const std::uint64_t rows = g * n;
  scale_elements<<<cuda::blocks_for(rows * d, kThreads), kThreads>>>(
      x, s.scaled.get(), ll(rows * d), static_cast<float>(std::pow(static_cast<double>(d), -0.25)));
  cuda::check_launch("scale_elements");
  half_squared_norms<<<cuda::blocks_for(rows, kThreads), kThreads>>>(s.scaled.get(), s.half_sq_norm.get(), ll(rows),
                                                                     static_cast<int>(d));
  cuda::check_launch("half_squared_norms");
  // x̃ (n×d per group) · ωᵀ (d×F, ω stored F×d and shared by every group)
  batched_gemm({s.scaled.get(), ll(n * d), ll(d), 1}, {omega.get(), 0, 1, ll(d)}, phi, g, n, f, d);
  exponents_and_row_maxima<<<cuda::blocks_for(rows, kThreads), kThreads>>>(phi, s.half_sq_norm.get(), s.row_max.get(),
                                                                           ll(rows), ll(f));
  cuda::check_launch("exponents_and_row_maxima");
  const float* m = s.row_max.get();
  std::uint64_t rows_per_stabiliser = 1;
  if (stabiliser == Stabiliser::per_group) {
    group_maxima<<<cuda::grid_x(g, "performer group maxima (one block a group)"), kThreads>>>(
        s.row_max.get(), s.group_max.get(), ll(n), ll(valid_rows));
    cuda::check_launch("group_maxima");
    if (fixed) {
      keep_first<<<cuda::blocks_for(g, kThreads), kThreads>>>(fixed, s.group_max.get(), ll(g));
      cuda::check_launch("keep_first");
    }
    m = fixed ? fixed : s.group_max.get();
    rows_per_stabiliser = n;
  }
  positive_features<<<cuda::blocks_for(rows * f, kThreads), kThreads>>>(
      phi, m, ll(rows), ll(f), ll(rows_per_stabiliser), static_cast<float>(1.0 / std::sqrt(static_cast<double>(f))));
  cuda::check_launch("positive_features");
}

/// The causal form's device buffers, allocated before the timed window.
struct CausalBuffers {
  std::uint64_t g, n, d, f, chunks, padded_n, blocks;
  cuda::DeviceBuffer<float> q_p, k_p, v_p, phi_q, phi_k;  // rows padded to whole chunks
  FeatureScratch scratch;
  cuda::DeviceBuffer<float> state, k_sum;  // per chunk: φ(K)ᵀV and Σφ(k), then of those before it
  cuda::DeviceBuffer<float> scores, within_sum, within, before, before_sum;  // per chunk's rows
  explicit CausalBuffers(const AttentionConfig& c)
      : g(c.batch * c.heads),
        n(c.seq),
        d(c.head_dim),
        f(c.features),
        chunks((n + kCausalChunk - 1) / kCausalChunk),
        padded_n(chunks * kCausalChunk),
        blocks(g * chunks),
        q_p(g * padded_n * d),
        k_p(g * padded_n * d),
        v_p(g * padded_n * d),
        phi_q(g * padded_n * f),
        phi_k(g * padded_n * f),
        scratch(g, padded_n, d),
        state(blocks * f * d),
        k_sum(blocks * f),
        scores(blocks * kCausalChunk * kCausalChunk),
        within_sum(blocks * kCausalChunk),
        within(blocks * kCausalChunk * d),
        before(blocks * kCausalChunk * d),
        before_sum(blocks * kCausalChunk) {}
};

/// The causal form (see the file's comment) into out (g·n·d).
void performer_causal(const cuda::DeviceBuffer<float>& q, const cuda::DeviceBuffer<float>& k,
                      const cuda::DeviceBuffer<float>& v, const cuda::DeviceBuffer<float>& omega, CausalBuffers& b,
                      float* out, const AttentionConfig& c, const Reporter& report) {
  const std::uint64_t g = b.g, n = b.n, d = b.d, f = b.f, chunk = kCausalChunk, chunks = b.chunks,
                      padded_n = b.padded_n, blocks = b.blocks;
  for (const auto& [from, to] : {std::pair{&q, &b.q_p}, {&k, &b.k_p}, {&v, &b.v_p}}) {
    pad_rows<<<cuda::blocks_for(g * padded_n * d, kThreads), kThreads>>>(from->get(), to->get(), ll(g), ll(n),
                                                                         ll(padded_n), static_cast<int>(d));
    cuda::check_launch("pad_rows");
  }
  features(b.q_p.get(), b.scratch, omega, b.phi_q.get(), g, padded_n, d, f, Stabiliser::per_row, padded_n);
  report([=] { return stages::performer_features(c, "q"); });
  features(b.k_p.get(), b.scratch, omega, b.phi_k.get(), g, padded_n, d, f, Stabiliser::per_group, n);
  report([=] { return stages::performer_features(c, "k"); });
  // each chunk's φ(K)ᵀV (F×d) and Σφ(k), then the sums of the chunks before it
  batched_gemm({b.phi_k.get(), ll(chunk * f), 1, ll(f)}, {b.v_p.get(), ll(chunk * d), ll(d), 1}, b.state.get(), blocks,
               f, d, chunk);
  column_sums<<<cuda::blocks_for(blocks * f, kThreads), kThreads>>>(b.phi_k.get(), b.k_sum.get(), ll(blocks), ll(chunk),
                                                                    ll(f));
  cuda::check_launch("column_sums");
  exclusive_chunk_scan_kernel<<<cuda::blocks_for(g * f * d, kThreads), kThreads>>>(b.state.get(), ll(g), ll(chunks),
                                                                                   ll(f * d));
  cuda::check_launch("exclusive_chunk_scan");
  exclusive_chunk_scan_kernel<<<cuda::blocks_for(g * f, kThreads), kThreads>>>(b.k_sum.get(), ll(g), ll(chunks), ll(f));
  cuda::check_launch("exclusive_chunk_scan");
  // within each chunk: φ(Q)φ(K)ᵀ masked above the diagonal, times V; before it: φ(Q) times the earlier sums
  batched_gemm({b.phi_q.get(), ll(chunk * f), ll(f), 1}, {b.phi_k.get(), ll(chunk * f), 1, ll(f)}, b.scores.get(),
               blocks, chunk, chunk, f);
  mask_later_keys<<<cuda::blocks_for(blocks * chunk, kThreads), kThreads>>>(b.scores.get(), b.within_sum.get(),
                                                                            ll(blocks), static_cast<int>(chunk));
  cuda::check_launch("mask_later_keys");
  batched_gemm({b.scores.get(), ll(chunk * chunk), ll(chunk), 1}, {b.v_p.get(), ll(chunk * d), ll(d), 1},
               b.within.get(), blocks, chunk, d, chunk);
  batched_gemm({b.phi_q.get(), ll(chunk * f), ll(f), 1}, {b.state.get(), ll(f * d), ll(d), 1}, b.before.get(), blocks,
               chunk, d, f);
  batched_gemm({b.phi_q.get(), ll(chunk * f), ll(f), 1}, {b.k_sum.get(), ll(f), 1, 0}, b.before_sum.get(), blocks,
               chunk, 1, f);
  combine_causal<<<cuda::blocks_for(g * n, kThreads), kThreads>>>(b.within.get(), b.before.get(), b.within_sum.get(),
                                                                  b.before_sum.get(), out, ll(g), ll(n), ll(padded_n),
                                                                  static_cast<int>(d));
  cuda::check_launch("combine_causal");
}
/// Performer's decode state on the device: S = Σ φ(k_j) v_jᵀ (F×d) and z = Σ φ(k_j) (F) per group.
class PerformerDecodeCuda final : public DecodeState {
 public:
  PerformerDecodeCuda(const AttentionConfig& c, const KernelParameters& p)
      : batch_(c.batch),
        heads_(c.heads),
        g_(c.batch * c.heads),
        d_(c.head_dim),
        f_(c.features),
        omega_(p.at("omega")),
        kv_(g_ * f_ * d_),
        k_sum_(g_ * f_),
        stabiliser_(std::vector<float>(g_, -INFINITY)) {  // none yet: the first keys folded in fix them
    cuda::check(cudaMemset(kv_.get(), 0, g_ * f_ * d_ * sizeof(float)), "cudaMemset");
    cuda::check(cudaMemset(k_sum_.get(), 0, g_ * f_ * sizeof(float)), "cudaMemset");
  }
  void add(const AttentionInputs& prompt) override {
    const std::uint64_t n = prompt.k.seq;
    const cuda::DeviceBuffer<float> k(prompt.k.data), v(prompt.v.data);
    Fold fold(g_, n, d_, f_);
    fold_in(k.get(), v.get(), n, fold);
  }
  RunResult step(const AttentionInputs& token) override {
    const cuda::DeviceBuffer<float> q(token.q.data), k(token.k.data), v(token.v.data);
    Fold fold(g_, 1, d_, f_);
    cuda::DeviceBuffer<float> phi_q(g_ * f_), numerator(g_ * d_), denominator(g_), out(g_ * d_);
    cuda::EventTimer timer;
    fold_in(k.get(), v.get(), 1, fold);
    features(q.get(), fold.scratch, omega_, phi_q.get(), g_, 1, d_, f_, Stabiliser::per_row, 1);
    batched_gemm({phi_q.get(), ll(f_), ll(f_), 1}, {kv_.get(), ll(f_ * d_), ll(d_), 1}, numerator.get(), g_, 1, d_, f_);
    batched_gemm({phi_q.get(), ll(f_), ll(f_), 1}, {k_sum_.get(), ll(f_), 1, 0}, denominator.get(), g_, 1, 1, f_);
    divide_rows<<<cuda::blocks_for(g_, kThreads), kThreads>>>(numerator.get(), denominator.get(), out.get(), ll(g_),
                                                              static_cast<int>(d_));
    cuda::check_launch("divide_rows");
    const double ms = timer.stop_ms();
    return RunResult{Tensor{batch_, heads_, 1, d_, out.download()}, ms, Device::cuda};
  }
  std::uint64_t bytes() const override { return g_ * (f_ * d_ + f_ + 1) * sizeof(float); }  // S, z, m
  std::map<std::string, std::vector<double>> arrays() const override {
    const std::vector<float> kv = kv_.download(), k_sum = k_sum_.download(), stabiliser = stabiliser_.download();
    return {{"kv", {kv.begin(), kv.end()}},
            {"k_sum", {k_sum.begin(), k_sum.end()}},
            {"stabiliser", {stabiliser.begin(), stabiliser.end()}}};
  }

 private:
  /// The device buffers of folding n tokens a group in (allocated before any timer).
  struct Fold {
    Fold(std::uint64_t g, std::uint64_t n, std::uint64_t d, std::uint64_t f)
        : scratch(g, n, d), phi(g * n * f), kv(g * f * d), k_sum(g * f) {}
    FeatureScratch scratch;
    cuda::DeviceBuffer<float> phi, kv, k_sum;
  };
  /// φ(k) of n tokens a group (at the group's stabiliser, fixed by the first keys folded in), then S += φ(K)ᵀV
  /// and z += Σφ(k).
  void fold_in(const float* k, const float* v, std::uint64_t n, Fold& b) {
    features(k, b.scratch, omega_, b.phi.get(), g_, n, d_, f_, Stabiliser::per_group, n, stabiliser_.get());
    batched_gemm({b.phi.get(), ll(n * f_), 1, ll(f_)}, {v, ll(n * d_), ll(d_), 1}, b.kv.get(), g_, f_, d_, n);
    column_sums<<<cuda::blocks_for(g_ * f_, kThreads), kThreads>>>(b.phi.get(), b.k_sum.get(), ll(g_), ll(n), ll(f_));
    cuda::check_launch("column_sums");
    add_onto_kernel<<<cuda::blocks_for(g_ * f_ * d_, kThreads), kThreads>>>(kv_.get(), b.kv.get(), ll(g_ * f_ * d_));
    cuda::check_launch("add_onto (S)");
    add_onto_kernel<<<cuda::blocks_for(g_ * f_, kThreads), kThreads>>>(k_sum_.get(), b.k_sum.get(), ll(g_ * f_));
    cuda::check_launch("add_onto (z)");
  }
  std::uint64_t batch_, heads_, g_, d_, f_;
  const cuda::DeviceBuffer<float> omega_;
  cuda::DeviceBuffer<float> kv_, k_sum_, stabiliser_;
};
}  // namespace

RunResult performer_cuda(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                         const Reporter& report) {
  const std::uint64_t g = c.batch * c.heads, n = c.seq, d = c.head_dim, f = c.features;
  const cuda::DeviceBuffer<float> q(in.q.data), k(in.k.data), v(in.v.data);
  const cuda::DeviceBuffer<float> omega(parameters.at("omega"));
  if (c.causal) {
    cuda::DeviceBuffer<float> out(g * n * d);
    CausalBuffers buffers(c);
    cuda::EventTimer timer;
    performer_causal(q, k, v, omega, buffers, out.get(), c, report);
    const double ms = timer.stop_ms();
    report([=] { return stages::performer_mixing(c); });
    return cuda_result(c, out.download(), ms);
  }
  FeatureScratch scratch(g, n, d);
  cuda::DeviceBuffer<float> phi_q(g * n * f), phi_k(g * n * f);
  cuda::DeviceBuffer<float> kv(g * f * d), k_sum(g * f), numerator(g * n * d), denominator(g * n), out(g * n * d);
  cuda::EventTimer timer;
  features(q.get(), scratch, omega, phi_q.get(), g, n, d, f, Stabiliser::per_row, n);
  report([=] { return stages::performer_features(c, "q"); });
  features(k.get(), scratch, omega, phi_k.get(), g, n, d, f, Stabiliser::per_group, n);
  report([=] { return stages::performer_features(c, "k"); });
  // φ(K)ᵀ (F×n) · V (n×d)
  batched_gemm({phi_k.get(), ll(n * f), 1, ll(f)}, {v.get(), ll(n * d), ll(d), 1}, kv.get(), g, f, d, n);
  column_sums<<<cuda::blocks_for(g * f, kThreads), kThreads>>>(phi_k.get(), k_sum.get(), ll(g), ll(n), ll(f));
  cuda::check_launch("column_sums");
  batched_gemm({phi_q.get(), ll(n * f), ll(f), 1}, {kv.get(), ll(f * d), ll(d), 1}, numerator.get(), g, n, d, f);
  batched_gemm({phi_q.get(), ll(n * f), ll(f), 1}, {k_sum.get(), ll(f), 1, 0}, denominator.get(), g, n, 1, f);
  divide_rows<<<cuda::blocks_for(g * n, kThreads), kThreads>>>(numerator.get(), denominator.get(), out.get(), ll(g * n),
                                                               static_cast<int>(d));
  cuda::check_launch("divide_rows");
  const double ms = timer.stop_ms();
  report([=] { return stages::performer_mixing(c); });
  return cuda_result(c, out.download(), ms);
}

std::unique_ptr<DecodeState> performer_decode_state_cuda(const AttentionConfig& config,
                                                         const KernelParameters& parameters) {
  return std::make_unique<PerformerDecodeCuda>(config, parameters);
}

}  // namespace ecosim::ecoformer::detail
