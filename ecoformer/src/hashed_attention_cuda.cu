// CUDA kernels of hashed attention, the same phases as the CPU reference (hashed_attention_cpu.cpp). The
// hash steps use the CPU's summation order with explicitly rounded fp32 operations (no FMA contraction),
// the shared rbf_exp (exp in double rounded to fp32), and double accumulators for the two reductions over tokens, so
// codes match the CPU bit for bit except where a projection lies within rounding of 0 (a tie). Codes live in global
// memory only as packed words; products with codes are bit-selected additions/subtractions (BinaryCodes).
// Non-causal: one cooperative launch (hashed_fused.cuh). Causal (config.causal), as the CPU reference: the kernel's
// bandwidth and column means fixed beforehand from each head's anchors (host, not timed), then per chunk of
// kCausalChunkTokens tokens the sums M, z, s of the chunks before it (partial sums, an exclusive scan in chunk
// order) and, within the chunk, each earlier token's weight h_i·h_j + c. Decoding (hashed_decode_state_cuda): M, s
// and Σv on the device, each step hashing its token with the causal form's kernels and folding it in, then reading
// its query. The per-element steps are shared (hashed_device.cuh).
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "decode_states.hpp"
#include "ecosim/kernels/cuda_support.cuh"
#include "ecosim/ops_counter/checked.hpp"
#include "hash_math.hpp"
#include "hashed_backends.hpp"
#include "hashed_common.hpp"
#include "hashed_fused.cuh"
#include "running_sums.cuh"

namespace ecosim::ecoformer::detail {

namespace {

constexpr unsigned kThreads = 256;
constexpr std::uint64_t kCausalChunkTokens = 64;  // causal: tokens a chunk, each weighing its earlier tokens

__global__ void normalize_rows_kernel(const float* x, float* out, long long rows, int d) {
  const long long row = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row < rows) normalize_row(x, out, row, d);
}

// dist[(g·n + i)·m + a] = ‖x_gi − anchor_{head(g), a}‖², one thread a (token, anchor).
__global__ void distances_kernel(const float* x, const float* anchors_t, float* dist, long long pairs, long long n,
                                 int d, int m, long long heads) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= pairs) return;
  const long long token = e / m;
  dist[e] = anchor_distance(x, anchors_t, token, (token / n) % heads, static_cast<int>(e % m), d, m);
}

// Causal and decoding, with the bandwidth fixed by the anchors: k = exp(−dist/(2σ)) in place.
__global__ void rbf_kernel(float* dist, const float* inv, long long count, long long per_group) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= count) return;
  dist[e] = rbf_exp(__fmul_rn(dist[e], -inv[e / per_group]));
}

// Causal: every kernel value minus its anchor's fixed mean (means [head][m]).
__global__ void subtract_means_kernel(float* k, const float* means, long long count, long long n, int m,
                                      long long heads) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const long long head = e / m / n % heads;
  k[e] = __fsub_rn(k[e], means[head * m + e % m]);
}

// One thread per token: its hash from features already centred (packed signs, or fp-ecoformer's real values).
template <class Word>
__global__ void hash_kernel(const float* f, int f_len, const float* w, int bits, long long tokens, long long n,
                            long long heads, Word* words, float* real) {
  const long long token = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (token >= tokens) return;
  hash_token(f, f_len, nullptr, w ? w + ((token / n) % heads) * bits * f_len : nullptr, bits, token, words, real);
}

// Causal and decoding, one block per (group, chunk), block g·chunks + chunk (a 1-D grid: any number of groups):
// partial sums over one chunk of tokens of M, z and s into partial_f [g][chunk][b·d + d] and partial_s
// [g][chunk][b].
template <class Codes>
__global__ void context_partials_kernel(Codes codes, const float* v, long long n, long long chunks,
                                        long long chunk_tokens, int d, int bits, float* partial_f,
                                        typename Codes::Sum* partial_s) {
  const long long g = blockIdx.x / chunks, chunk = blockIdx.x % chunks;
  const long long first = chunk * chunk_tokens;
  chunk_context_partials(codes, v, n, g, first, min(first + chunk_tokens, n), d, bits,
                         partial_f + blockIdx.x * (static_cast<long long>(bits) * d + d),
                         partial_s + blockIdx.x * static_cast<long long>(bits));
}

/// h_i·h_j over the bits: real codes multiplied; ±1 codes b − 2·(bits that differ), exact.
__device__ float code_dot(const RealCodes& codes, long long i, long long j, int bits) {
  float acc = codes.times(i, 0, codes.code(j, 0));
  for (int r = 1; r < bits; ++r) acc += codes.times(i, r, codes.code(j, r));
  return acc;
}
template <class Word>
__device__ std::int32_t code_dot(const BinaryCodes<Word>& codes, long long i, long long j, int bits) {
  return bits - 2 * __popcll(static_cast<unsigned long long>(codes.words[i] ^ codes.words[j]));
}

// Causal, one thread per token: 1/(h_i·s_before + Σ_{first≤j≤i} h_i·h_j + c·(i + 1)), s_before the code sums of
// the chunks before token i's (exclusive partials [g][chunk][bits]).
template <class Codes>
__global__ void causal_denominator_kernel(Codes codes, const typename Codes::Sum* before_s, long long tokens,
                                          long long n, long long chunks, long long chunk_tokens, int bits,
                                          typename Codes::Sum bias, float* inv_den) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= tokens) return;
  const long long g = i / n, t = i % n, chunk = t / chunk_tokens, first = g * n + chunk * chunk_tokens;
  const typename Codes::Sum* s = before_s + (g * chunks + chunk) * bits;
  typename Codes::Sum acc = codes.times(i, 0, s[0]);
  for (int r = 1; r < bits; ++r) acc += codes.times(i, r, s[r]);
  for (long long j = first; j <= i; ++j) acc += code_dot(codes, i, j, bits);
  inv_den[i] = 1.0f / static_cast<float>(acc + bias * static_cast<typename Codes::Sum>(t + 1));
}

// Causal, one thread per (token, k): (h_i·M_before + c·z_before + Σ_{first≤j≤i} (h_i·h_j + c)·v_j)_k · 1/den_i,
// M_before and z_before the sums of the chunks before (exclusive partials [g][chunk][b·d + d]).
template <class Codes>
__global__ void causal_output_kernel(Codes codes, const float* before_f, const float* v, const float* inv_den,
                                     long long tokens, long long n, long long chunks, long long chunk_tokens, int bits,
                                     int d, float bias, float* out) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= tokens * d) return;
  const long long i = e / d, g = i / n, t = i % n, chunk = t / chunk_tokens, first = g * n + chunk * chunk_tokens;
  const int k = static_cast<int>(e % d);
  const float* m = before_f + (g * chunks + chunk) * (static_cast<long long>(bits) * d + d);
  float acc = codes.times(i, 0, m[k]);
  for (int r = 1; r < bits; ++r) acc += codes.times(i, r, m[r * d + k]);
  acc += bias * m[bits * d + k];
  for (long long j = first; j <= i; ++j) acc += (static_cast<float>(code_dot(codes, i, j, bits)) + bias) * v[j * d + k];
  out[e] = acc * inv_den[i];
}

// Decoding, one thread per (group, k): the query of group g (token g of `codes`, one a group) over the state —
// (h·M + c·z)_k / (h·s + c·count), M and z in state_f [g][b·d + d], s in state_s [g][b].
template <class Codes>
__global__ void decode_output_kernel(Codes codes, const float* state_f, const typename Codes::Sum* state_s,
                                     long long groups, int bits, int d, typename Codes::Sum bias,
                                     typename Codes::Sum count, float* out) {
  const long long e = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= groups * d) return;
  const long long g = e / d;
  const int k = static_cast<int>(e % d);
  const typename Codes::Sum* s = state_s + g * bits;
  typename Codes::Sum den = codes.times(g, 0, s[0]);
  for (int r = 1; r < bits; ++r) den += codes.times(g, r, s[r]);
  den += bias * count;
  const float* m = state_f + g * (static_cast<long long>(bits) * d + d);
  float acc = codes.times(g, 0, m[k]);
  for (int r = 1; r < bits; ++r) acc += codes.times(g, r, m[r * d + k]);
  out[e] = (acc + static_cast<float>(bias) * m[bits * d + k]) * (1.0f / static_cast<float>(den));
}

struct Dims {
  long long groups, n, heads, tokens;
  int d, b, m;
  bool causal;
  std::uint64_t fused_chunk = kFusedThreads;  // non-causal: the fused kernel's chunk (fused_chunk_tokens)
  std::uint64_t chunk_tokens() const { return causal ? kCausalChunkTokens : fused_chunk; }
  std::uint64_t chunks() const { return (static_cast<std::uint64_t>(n) + chunk_tokens() - 1) / chunk_tokens(); }
  std::uint64_t floats() const { return static_cast<std::uint64_t>(b) * d + d; }  // M and z per group
  std::uint64_t count(long long a, long long b2 = 1) const { return static_cast<std::uint64_t>(a) * b2; }
};

/// anchors[(head·m + a)·d + c] as anchors_t[(head·d + c)·m + a], the layout anchor_distance reads.
std::vector<float> transposed_anchors(const std::vector<float>& anchors, const Dims& s) {
  if (anchors.empty()) return {};
  std::vector<float> t(anchors.size());
  const std::size_t m = static_cast<std::size_t>(s.m), d = static_cast<std::size_t>(s.d);
  for (std::size_t h = 0; h < anchors.size() / (m * d); ++h)
    for (std::size_t a = 0; a < m; ++a)
      for (std::size_t c = 0; c < d; ++c) t[(h * d + c) * m + a] = anchors[(h * m + a) * d + c];
  return t;
}

/// Causal: the kernel's fixed statistics from each head's anchors (CPU reference's anchor_statistics): 1/(2σ) per
/// group and the column means [head][m]. Parameters, computed before timing, as the CPU reference does.
struct FixedStatistics {
  std::vector<float> inverse_bandwidth, means;
};
FixedStatistics fixed_statistics(const HashParams& params, const Dims& s) {
  FixedStatistics f;
  if (!s.causal || !params.kernel()) return f;
  const auto m = static_cast<std::uint64_t>(s.m), d = static_cast<std::uint64_t>(s.d);
  std::vector<float> per_head;
  for (long long h = 0; h < s.heads; ++h) {
    const AnchorStatistics a = anchor_statistics(&params.anchors[static_cast<std::uint64_t>(h) * m * d], m, d);
    per_head.push_back(a.inverse_bandwidth);
    f.means.insert(f.means.end(), a.means.begin(), a.means.end());
  }
  for (long long g = 0; g < s.groups; ++g)
    f.inverse_bandwidth.push_back(per_head[static_cast<std::size_t>(g % s.heads)]);
  return f;
}

/// Every device buffer of one run, allocated (and inputs uploaded) before timing starts.
template <class Word, class Sum>
struct Workspace {
  Workspace(const HashedProblem& p, const Dims& s, const FixedStatistics& fixed = {})
      : qk(p.qk.data),
        v(p.v.data),
        anchors_t(transposed_anchors(p.params.anchors, s)),
        projection(p.params.projection),
        x(s.count(s.tokens, s.d)),
        out(s.count(s.tokens, s.d)),
        kernel(p.params.kernel() ? s.count(s.tokens, s.m) : 0),
        inv(!fixed.inverse_bandwidth.empty() ? cuda::DeviceBuffer<float>(fixed.inverse_bandwidth)
            : p.params.kernel()              ? cuda::DeviceBuffer<float>(s.count(s.groups))
                                             : cuda::DeviceBuffer<float>(0)),
        means(fixed.means),
        column_means(fused(p, s) ? s.count(s.groups, s.m) : 0),
        partial_dist(fused(p, s) ? s.count(s.groups) * s.chunks() : 0),
        partial_kernel(fused(p, s) ? s.count(s.groups, s.m) * s.chunks() : 0),
        words(p.params.binary() ? s.count(s.tokens) : 0),
        real(p.params.binary() ? 0 : s.count(s.tokens, s.b)),
        partial_f(s.count(s.groups) * s.chunks() * s.floats()),
        partial_s(s.count(s.groups, s.b) * s.chunks()),
        ctx_z(s.causal ? 0 : s.count(s.groups) * s.floats()),  // the causal form reads the scanned partials
        sums(s.causal ? 0 : s.count(s.groups, s.b)),
        inv_den(s.causal ? s.count(s.tokens) : 0) {}
  /// Whether the fused kernel computes the RBF features' statistics (non-causal with the kernel features).
  static bool fused(const HashedProblem& p, const Dims& s) { return !s.causal && p.params.kernel(); }
  const cuda::DeviceBuffer<float> qk, v, anchors_t, projection;
  cuda::DeviceBuffer<float> x, out, kernel, inv;
  const cuda::DeviceBuffer<float> means;   // causal: the anchors' column means [head][m]
  cuda::DeviceBuffer<float> column_means;  // non-causal: the RBF values' column means [group][m]
  cuda::DeviceBuffer<double> partial_dist, partial_kernel;
  cuda::DeviceBuffer<Word> words;
  cuda::DeviceBuffer<float> real, partial_f;
  cuda::DeviceBuffer<Sum> partial_s;
  cuda::DeviceBuffer<float> ctx_z;
  cuda::DeviceBuffer<Sum> sums;
  cuda::DeviceBuffer<float> inv_den;
};

/// The hash's stages, in the CPU reference's order (reported after the kernels that ran them).
void report_hash_stages(const HashedProblem& p, const Reporter& report) {
  report([=] { return stages::hashed_stage(p.config, stages::HashedStage::qk_normalize); });
  if (p.params.kernel())
    for (stages::HashPart part : {stages::HashPart::distances, stages::HashPart::kernel, stages::HashPart::centre})
      report([=] { return stages::hash_part(p.config, part); });
  if (!p.params.projection.empty()) report([=] { return stages::hash_part(p.config, stages::HashPart::projection); });
  if (p.params.binary()) report([=] { return stages::hash_part(p.config, stages::HashPart::sign); });
}

/// The attention's stages after the hash, in the CPU reference's order.
void report_attention_stages(const HashedProblem& p, const Reporter& report) {
  using stages::HashedStage;
  for (HashedStage stage : {HashedStage::code_sum, HashedStage::value_sum, HashedStage::context, HashedStage::numerator,
                            HashedStage::denominator, HashedStage::normalise})
    report([=] { return stages::hashed_stage(p.config, stage); });
}

/// Causal: normalisation and the hash with the anchors' fixed statistics — packed words (binary variants) or real
/// codes (fp-ecoformer).
template <class Word, class Sum>
void hash_tokens_causal(const HashedProblem& p, const Dims& s, Workspace<Word, Sum>& w) {
  const std::uint64_t tokens = s.count(s.tokens);
  normalize_rows_kernel<<<cuda::blocks_for(tokens, kThreads), kThreads>>>(w.qk.get(), w.x.get(), s.tokens, s.d);
  cuda::check_launch("hashed q/k normalisation");
  const float* features = w.x.get();
  int f_len = s.d;
  if (p.params.kernel()) {
    const std::uint64_t pairs = s.count(s.tokens, s.m);
    distances_kernel<<<cuda::blocks_for(pairs, kThreads), kThreads>>>(
        w.x.get(), w.anchors_t.get(), w.kernel.get(), static_cast<long long>(pairs), s.n, s.d, s.m, s.heads);
    cuda::check_launch("hashed anchor distances");
    rbf_kernel<<<cuda::blocks_for(pairs, kThreads), kThreads>>>(w.kernel.get(), w.inv.get(),
                                                                static_cast<long long>(pairs), s.n * s.m);
    cuda::check_launch("hashed RBF kernel");
    subtract_means_kernel<<<cuda::blocks_for(pairs, kThreads), kThreads>>>(
        w.kernel.get(), w.means.get(), static_cast<long long>(pairs), s.n, s.m, s.heads);
    cuda::check_launch("hashed kernel fixed centring");
    features = w.kernel.get();
    f_len = s.m;
  }
  const float* projection = p.params.projection.empty() ? nullptr : w.projection.get();
  hash_kernel<Word><<<cuda::blocks_for(tokens, kThreads), kThreads>>>(features, f_len, projection, s.b, s.tokens, s.n,
                                                                      s.heads, w.words.get(), w.real.get());
  cuda::check_launch("hashed projection and sign");
}

/// Non-causal: the whole attention, out_i = (h_i·M + c·z) / (h_i·s + c·N), in the fused kernel's one launch.
template <class Codes, class Word>
void attend_fused(const FusedHashedLaunch<Codes, Word>& launch, const Codes& codes, const HashedProblem& p,
                  const Dims& s, Workspace<Word, typename Codes::Sum>& w) {
  using Sum = typename Codes::Sum;
  const bool kernel = p.params.kernel();
  launch(FusedHashed<Codes, Word>{.qk = w.qk.get(),
                                  .v = w.v.get(),
                                  .anchors_t = w.anchors_t.get(),
                                  .projection = p.params.projection.empty() ? nullptr : w.projection.get(),
                                  .x = w.x.get(),
                                  .kernel = kernel ? w.kernel.get() : nullptr,
                                  .inv = w.inv.get(),
                                  .mean = w.column_means.get(),
                                  .partial_dist = w.partial_dist.get(),
                                  .partial_kernel = w.partial_kernel.get(),
                                  .codes = codes,
                                  .words = w.words.get(),
                                  .real = w.real.get(),
                                  .partial_f = w.partial_f.get(),
                                  .partial_s = w.partial_s.get(),
                                  .ctx_z = w.ctx_z.get(),
                                  .sums = w.sums.get(),
                                  .out = w.out.get(),
                                  .groups = s.groups,
                                  .n = s.n,
                                  .heads = s.heads,
                                  .chunks = static_cast<long long>(s.chunks()),
                                  .chunk_tokens = static_cast<long long>(s.chunk_tokens()),
                                  .d = s.d,
                                  .b = s.b,
                                  .m = s.m,
                                  .bias = static_cast<float>(p.bias),
                                  .bias_n = static_cast<Sum>(p.bias) * static_cast<Sum>(s.n)});
}

/// Causal: out_i = (h_i·M_i + c·z_i) / (h_i·s_i + c·(i + 1)) with the sums over j ≤ i — the chunks' partial sums,
/// scanned over the chunks before each, and each token's own chunk up to it.
template <class Codes, class Word>
void attend_causal(const Codes& codes, const HashedProblem& p, const Dims& s, Workspace<Word, typename Codes::Sum>& w) {
  using Sum = typename Codes::Sum;
  const std::uint64_t chunks = s.chunks(), floats = s.floats();
  const auto chunk_tokens = static_cast<long long>(s.chunk_tokens()), chunk_count = static_cast<long long>(chunks);
  context_partials_kernel<<<cuda::grid_x(s.count(s.groups) * chunks,
                                         "hashed causal partial sums (one block per group and chunk of tokens)"),
                            kThreads>>>(codes, w.v.get(), s.n, chunk_count, chunk_tokens, s.d, s.b, w.partial_f.get(),
                                        w.partial_s.get());
  cuda::check_launch("hashed causal partial sums");
  exclusive_chunk_scan_kernel<<<cuda::blocks_for(s.count(s.groups) * floats, kThreads), kThreads>>>(
      w.partial_f.get(), s.groups, chunk_count, static_cast<long long>(floats));
  cuda::check_launch("hashed causal scan of M and z");
  exclusive_chunk_scan_kernel<<<cuda::blocks_for(s.count(s.groups, s.b), kThreads), kThreads>>>(
      w.partial_s.get(), s.groups, chunk_count, static_cast<long long>(s.b));
  cuda::check_launch("hashed causal scan of s");
  causal_denominator_kernel<<<cuda::blocks_for(s.count(s.tokens), kThreads), kThreads>>>(
      codes, w.partial_s.get(), s.tokens, s.n, chunk_count, chunk_tokens, s.b, static_cast<Sum>(p.bias),
      w.inv_den.get());
  cuda::check_launch("hashed causal denominators");
  causal_output_kernel<<<cuda::blocks_for(s.count(s.tokens, s.d), kThreads), kThreads>>>(
      codes, w.partial_f.get(), w.v.get(), w.inv_den.get(), s.tokens, s.n, chunk_count, chunk_tokens, s.b, s.d,
      static_cast<float>(p.bias), w.out.get());
  cuda::check_launch("hashed causal output");
}

/// kBinary: packed codes and int32 sums; otherwise the real codes of fp-ecoformer.
template <class Word, bool kBinary>
HashedOutput run(const HashedProblem& p, const Dims& s, const Reporter& report) {
  Workspace<Word, std::conditional_t<kBinary, std::int32_t, float>> w(p, s, fixed_statistics(p.params, s));
  HashedOutput result;
  const auto run_attend = [&](const auto& codes) {
    using Codes = std::decay_t<decltype(codes)>;
    if (s.causal) {
      cuda::EventTimer timer;
      hash_tokens_causal(p, s, w);
      attend_causal(codes, p, s, w);
      return timer.stop_ms();
    }
    // the grid from the device's occupancy and the widest phase's work, before the timer
    const auto blocks = [](std::uint64_t threads) { return (threads + kFusedThreads - 1) / kFusedThreads; };
    const FusedHashedLaunch<Codes, Word> launch(
        std::max({s.count(s.groups) * s.chunks(), blocks(s.count(s.groups) * (s.floats() + s.b)),
                  blocks(s.count(s.tokens, s.d))}));
    cuda::EventTimer timer;
    attend_fused(launch, codes, p, s, w);
    return timer.stop_ms();
  };
  if constexpr (kBinary)
    result.latency_ms = run_attend(BinaryCodes<Word>{w.words.get()});
  else
    result.latency_ms = run_attend(RealCodes{w.real.get(), static_cast<unsigned>(s.b)});
  report_hash_stages(p, report);
  report_attention_stages(p, report);
  if constexpr (kBinary) {
    result.hashes.codes = PackedCodes(s.count(s.tokens), static_cast<unsigned>(s.b));
    result.hashes.codes.words<Word>() = w.words.download();
  } else {
    result.hashes.projections = w.real.download();
  }
  const AttentionConfig& c = p.config;
  result.out = Tensor{c.batch, c.heads, c.seq, c.head_dim, w.out.download()};
  return result;
}

/// The EcoFormer family's decode state on the device: M = Σh vᵀ and Σv (state_f [g][b·d + d]) and s = Σh (state_s
/// [g][b]) per group; tokens hashed with the causal kernels above (statistics fixed by the anchors) and folded in
/// by the context partial sums (one chunk of all the new tokens); the count of tokens on the host.
template <class Word, bool kBinary>
class HashedDecodeCuda final : public DecodeState {
  using Sum = std::conditional_t<kBinary, std::int32_t, float>;

 public:
  HashedDecodeCuda(const AttentionConfig& c, const KernelParameters& p)
      : batch_(c.batch),
        params_(hash_params_from(p, c)),
        bias_(hash_bias(c.code_bits(), HashedOptions{}.bias)),
        dims_{static_cast<long long>(c.batch * c.heads),
              1,
              static_cast<long long>(c.heads),
              static_cast<long long>(c.batch * c.heads),
              static_cast<int>(c.head_dim),
              static_cast<int>(c.code_bits()),
              static_cast<int>(c.support),
              true},
        fixed_(fixed_statistics(params_, dims_)),
        anchors_t_(transposed_anchors(params_.anchors, dims_)),
        projection_(params_.projection),
        inv_(fixed_.inverse_bandwidth),
        means_(fixed_.means),
        state_f_(dims_.count(dims_.groups) * dims_.floats()),
        state_s_(dims_.count(dims_.groups, dims_.b)) {
    cuda::check(cudaMemset(state_f_.get(), 0, dims_.count(dims_.groups) * dims_.floats() * sizeof(float)),
                "cudaMemset");
    cuda::check(cudaMemset(state_s_.get(), 0, dims_.count(dims_.groups, dims_.b) * sizeof(Sum)), "cudaMemset");
  }
  void add(const AttentionInputs& prompt) override {
    Tokens t(*this, prompt, prompt.q.seq);
    fold_in(t);
  }
  RunResult step(const AttentionInputs& token) override {
    Tokens t(*this, token, 1);
    cuda::DeviceBuffer<float> out(dims_.count(dims_.groups, dims_.d));
    cuda::EventTimer timer;
    fold_in(t);
    const auto read = [&](const auto& codes) {
      decode_output_kernel<<<cuda::blocks_for(dims_.count(dims_.groups, dims_.d), kThreads), kThreads>>>(
          codes, state_f_.get(), state_s_.get(), dims_.groups, dims_.b, dims_.d, static_cast<Sum>(bias_),
          static_cast<Sum>(count_), out.get());
      cuda::check_launch("hashed decode output");
    };
    if constexpr (kBinary)
      read(BinaryCodes<Word>{t.words.get()});
    else
      read(RealCodes{t.real.get(), static_cast<unsigned>(dims_.b)});
    const double ms = timer.stop_ms();
    return RunResult{
        Tensor{batch_, static_cast<std::uint64_t>(dims_.heads), 1, static_cast<std::uint64_t>(dims_.d), out.download()},
        ms, Device::cuda};
  }
  std::uint64_t bytes() const override {  // s as int32 (±1 codes) or fp32: 4 bytes either way
    return (dims_.count(dims_.groups) * dims_.floats() + dims_.count(dims_.groups, dims_.b)) * sizeof(float);
  }
  std::map<std::string, std::vector<double>> arrays() const override {
    const std::vector<float> f = state_f_.download();
    const std::vector<Sum> s = state_s_.download();
    const auto b = static_cast<std::uint64_t>(dims_.b), d = static_cast<std::uint64_t>(dims_.d);
    std::vector<double> context, value_sum;
    for (std::uint64_t g = 0; g < static_cast<std::uint64_t>(dims_.groups); ++g) {
      const auto begin = f.begin() + static_cast<std::ptrdiff_t>(g * (b * d + d));
      context.insert(context.end(), begin, begin + static_cast<std::ptrdiff_t>(b * d));
      value_sum.insert(value_sum.end(), begin + static_cast<std::ptrdiff_t>(b * d),
                       begin + static_cast<std::ptrdiff_t>(b * d + d));
    }
    return {{"context", context}, {"code_sum", {s.begin(), s.end()}}, {"value_sum", value_sum}};
  }

 private:
  /// n new tokens a group on the device, with their hashes' buffers (allocated before any timer).
  struct Tokens {
    Tokens(const HashedDecodeCuda& state, const AttentionInputs& in, std::uint64_t n)
        : n(static_cast<long long>(n)),
          qk(in.q.data),
          v(in.v.data),
          x(in.q.data.size()),
          kernel(state.params_.kernel() ? state.dims_.count(state.dims_.groups) * n * state.dims_.m : 0),
          words(kBinary ? state.dims_.count(state.dims_.groups) * n : 0),
          real(kBinary ? 0 : state.dims_.count(state.dims_.groups) * n * state.dims_.b),
          partial_f(state.dims_.count(state.dims_.groups) * state.dims_.floats()),
          partial_s(state.dims_.count(state.dims_.groups, state.dims_.b)) {}
    long long n;
    const cuda::DeviceBuffer<float> qk, v;
    cuda::DeviceBuffer<float> x, kernel;
    cuda::DeviceBuffer<Word> words;
    cuda::DeviceBuffer<float> real, partial_f;
    cuda::DeviceBuffer<Sum> partial_s;
  };
  /// Hashes the tokens (the causal hash: normalise, distances, RBF with the fixed bandwidth, the fixed means
  /// subtracted, projection and sign), then adds their M, Σv and s onto the state.
  void fold_in(Tokens& t) {
    if (kBinary && checked_mul(static_cast<std::uint64_t>(dims_.b) + static_cast<std::uint64_t>(bias_),
                               count_ + static_cast<std::uint64_t>(t.n)) > 0x7fffffffu)
      throw Error("decoding past " + std::to_string(count_) + " tokens would overflow int32 hash denominators");
    const long long tokens = dims_.groups * t.n, pairs = tokens * dims_.m;
    normalize_rows_kernel<<<cuda::blocks_for(static_cast<std::uint64_t>(tokens), kThreads), kThreads>>>(
        t.qk.get(), t.x.get(), tokens, dims_.d);
    cuda::check_launch("hashed decode normalisation");
    const float* features = t.x.get();
    int f_len = dims_.d;
    if (params_.kernel()) {
      distances_kernel<<<cuda::blocks_for(static_cast<std::uint64_t>(pairs), kThreads), kThreads>>>(
          t.x.get(), anchors_t_.get(), t.kernel.get(), pairs, t.n, dims_.d, dims_.m, dims_.heads);
      cuda::check_launch("hashed decode distances");
      rbf_kernel<<<cuda::blocks_for(static_cast<std::uint64_t>(pairs), kThreads), kThreads>>>(
          t.kernel.get(), inv_.get(), pairs, t.n * dims_.m);
      cuda::check_launch("hashed decode RBF kernel");
      subtract_means_kernel<<<cuda::blocks_for(static_cast<std::uint64_t>(pairs), kThreads), kThreads>>>(
          t.kernel.get(), means_.get(), pairs, t.n, dims_.m, dims_.heads);
      cuda::check_launch("hashed decode fixed centring");
      features = t.kernel.get();
      f_len = dims_.m;
    }
    hash_kernel<Word><<<cuda::blocks_for(static_cast<std::uint64_t>(tokens), kThreads), kThreads>>>(
        features, f_len, params_.projection.empty() ? nullptr : projection_.get(), dims_.b, tokens, t.n, dims_.heads,
        t.words.get(), t.real.get());
    cuda::check_launch("hashed decode projection and sign");
    const auto partials = [&](const auto& codes) {
      context_partials_kernel<<<cuda::grid_x(dims_.count(dims_.groups), "hashed decode sums (one block per group)"),
                                kThreads>>>(codes, t.v.get(), t.n, 1, t.n, dims_.d, dims_.b, t.partial_f.get(),
                                            t.partial_s.get());
      cuda::check_launch("hashed decode sums");
    };
    if constexpr (kBinary)
      partials(BinaryCodes<Word>{t.words.get()});
    else
      partials(RealCodes{t.real.get(), static_cast<unsigned>(dims_.b)});
    const std::uint64_t floats = dims_.count(dims_.groups) * dims_.floats(), sums = dims_.count(dims_.groups, dims_.b);
    add_onto_kernel<<<cuda::blocks_for(floats, kThreads), kThreads>>>(state_f_.get(), t.partial_f.get(),
                                                                      static_cast<long long>(floats));
    cuda::check_launch("hashed decode M and z");
    add_onto_kernel<<<cuda::blocks_for(sums, kThreads), kThreads>>>(state_s_.get(), t.partial_s.get(),
                                                                    static_cast<long long>(sums));
    cuda::check_launch("hashed decode s");
    count_ += static_cast<std::uint64_t>(t.n);
  }

  std::uint64_t batch_;
  HashParams params_;
  std::int32_t bias_;
  Dims dims_;
  FixedStatistics fixed_;  // the kernel's bandwidth (per group) and column means (per head), from the anchors
  const cuda::DeviceBuffer<float> anchors_t_, projection_, inv_, means_;
  cuda::DeviceBuffer<float> state_f_;
  cuda::DeviceBuffer<Sum> state_s_;
  std::uint64_t count_ = 0;
};
}  // namespace

HashedOutput hashed_attention_cuda(const HashedProblem& p, const Reporter& report) {
  const AttentionConfig& c = p.config;
  const Dims s{static_cast<long long>(c.batch * c.heads),
               static_cast<long long>(c.seq),
               static_cast<long long>(c.heads),
               static_cast<long long>(c.batch * c.heads * c.seq),
               static_cast<int>(c.head_dim),
               static_cast<int>(c.code_bits()),
               static_cast<int>(c.support),
               c.causal,
               c.causal ? kFusedThreads : fused_chunk_tokens(c.batch * c.heads, c.seq)};
  return with_code_word(static_cast<unsigned>(s.b), [&](auto word) {
    using Word = decltype(word);
    return p.params.binary() ? run<Word, true>(p, s, report) : run<Word, false>(p, s, report);
  });
}

std::unique_ptr<DecodeState> hashed_decode_state_cuda(const AttentionConfig& config,
                                                      const KernelParameters& parameters) {
  return with_code_word(static_cast<unsigned>(config.code_bits()), [&](auto word) -> std::unique_ptr<DecodeState> {
    using Word = decltype(word);
    if (stages::binary_codes(config.variant)) return std::make_unique<HashedDecodeCuda<Word, true>>(config, parameters);
    return std::make_unique<HashedDecodeCuda<Word, false>>(config, parameters);
  });
}

}  // namespace ecosim::ecoformer::detail
