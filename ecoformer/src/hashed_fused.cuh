// Internal (hashed_attention_cuda.cu only): non-causal hashed attention in one cooperative launch. Its phases
// are those of the CPU reference, separated by grid-wide barriers (cooperative_groups' grid.sync) where a phase
// needs sums over every token of a group: (A) each chunk of tokens (fused_chunk_tokens) normalised, its distances
// to the anchors, their sum per chunk; (B) per group the kernel's bandwidth from the chunks' sums; (C) the RBF
// values in place, each anchor's column sum per chunk; (D) per group and anchor the column mean; (E) each chunk's
// codes (the centring applied as the hash reads) and its partial sums of M = Σ h vᵀ, z = Σ v, s = Σ h; (F) per
// group M, c·z and s from the chunks' partials; (G) out_i = (h_i·M + c·z) / (h_i·s + c·N). A–D run only for the
// RBF-kernel features. Every reduction adds per-chunk partials in a fixed order (chunks in order; within a block,
// a fixed tree; across a warp, a fixed shuffle tree): results do not depend on the grid size or on timing.
// The blocks loop over the phases' work, so the grid is only as large as can be resident at once.
#pragma once
#include <cooperative_groups.h>

#include <algorithm>

#include "ecosim/kernels/cuda_support.cuh"
#include "ecosim/ops_counter/error.hpp"
#include "hashed_device.cuh"

namespace ecosim::ecoformer::detail {

inline constexpr unsigned kFusedThreads = 256;
/// Blocks of the fused kernel an SM holds at once: its launch bounds keep it within 64 registers a thread for them.
inline constexpr unsigned kFusedBlocksPerSm = 4;

/// The current device's SM count.
inline std::uint64_t device_sms() {
  int device = 0, sms = 0;
  cuda::check(cudaGetDevice(&device), "cudaGetDevice");
  cuda::check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  return static_cast<std::uint64_t>(sms);
}

/// A chunk's tokens: the phases working a chunk a block (A, C, E) have the (group, chunk) pairs as their blocks'
/// work, and a block's time there grows with its chunk (E's partial sums walk its tokens in order). So the chunk
/// is the largest of 256, 128 and 64 tokens that still gives about a pair for each block an SM holds
/// (kFusedBlocksPerSm), else 64: one thread a token where the work is per token (at most kFusedThreads).
/// The sums' grouping, and so their last bits, depend on it, hence on the device's SM count (run to run: none).
inline std::uint64_t fused_chunk_tokens(std::uint64_t groups, std::uint64_t n) {
  const std::uint64_t wanted = kFusedBlocksPerSm * device_sms();
  for (std::uint64_t chunk : {std::uint64_t{kFusedThreads}, std::uint64_t{kFusedThreads / 2}})
    if (groups * ((n + chunk - 1) / chunk) >= wanted) return chunk;
  return kFusedThreads / 4;
}

/// Everything the fused kernel reads and writes (device pointers), and the problem's sizes.
template <class Codes, class Word>
struct FusedHashed {
  using Sum = typename Codes::Sum;
  const float *qk, *v, *anchors_t, *projection;  // projection: nullptr when the variant has none
  float* x;                                      // the normalised rows [token][d]
  float *kernel, *inv, *mean;  // RBF features only (kernel nullptr otherwise): [token][m], [group], [group][m]
  double *partial_dist, *partial_kernel;  // per chunk: the distances' sum [group][chunk], column sums [..][m]
  Codes codes;                            // reading words or real, below
  Word* words;                            // packed codes [token] (binary variants), else nullptr
  float* real;                            // real codes [token][bits] (fp-ecoformer), else nullptr
  float* partial_f;                       // per chunk [group][chunk][b·d + d]: M then z
  Sum* partial_s;                         // per chunk [group][chunk][b]
  float* ctx_z;                           // per group [b·d + d]: M then c·z
  Sum* sums;                              // per group [b]
  float* out;                             // [token][d]
  long long groups, n, heads, chunks, chunk_tokens;  // chunk_tokens ≤ kFusedThreads (fused_chunk_tokens)
  int d, b, m;
  float bias;  // c
  Sum bias_n;  // c·N
};

/// Sum in double over the block (kFusedThreads threads) of one value per thread, in a fixed tree order; returned
/// to every thread. `scratch` holds kFusedThreads doubles in shared memory.
__device__ inline double block_total(double value, double* scratch) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (unsigned half = kFusedThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) scratch[threadIdx.x] += scratch[threadIdx.x + half];
    __syncthreads();
  }
  const double total = scratch[0];
  __syncthreads();  // scratch is reused by the next call
  return total;
}

/// Σ values[i·stride] for i < count by one whole warp: lane l adds i = l, l + 32, … in order, then a fixed shuffle
/// tree; the sum is lane 0's.
__device__ inline double warp_strided_sum(const double* values, long long count, long long stride) {
  double acc = 0.0;
  for (long long i = threadIdx.x % 32; i < count; i += 32) acc += values[i * stride];
  for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_down_sync(0xffffffffu, acc, offset);
  return acc;
}

template <class Codes, class Word>
__global__ void __launch_bounds__(kFusedThreads, kFusedBlocksPerSm)
    fused_hashed_kernel(const FusedHashed<Codes, Word> a) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  __shared__ double scratch[kFusedThreads];
  const long long items = a.groups * a.chunks;  // (group, chunk) pairs, block-strided
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long warp = thread / 32, warps = threads / 32;
  const bool lane0 = threadIdx.x % 32 == 0;
  // item → its group, its chunk's first token (of all tokens) and its token count
  const auto group_of = [&](long long item) { return item / a.chunks; };
  const auto first_of = [&](long long item) { return group_of(item) * a.n + (item % a.chunks) * a.chunk_tokens; };
  const auto count_of = [&](long long item) { return min(a.chunk_tokens, a.n - (item % a.chunks) * a.chunk_tokens); };

  if (a.kernel) {
    // (A) normalised rows, their distances to the head's anchors, the distances' sum per chunk
    for (long long item = blockIdx.x; item < items; item += gridDim.x) {
      const long long g = group_of(item), first = first_of(item), count = count_of(item);
      if (threadIdx.x < count) normalize_row(a.qk, a.x, first + threadIdx.x, a.d);
      __syncthreads();  // the distances read every row of the chunk
      double acc = 0.0;
      for (long long e = threadIdx.x; e < count * a.m; e += blockDim.x) {
        const long long token = first + e / a.m;
        const int anchor = static_cast<int>(e % a.m);
        const float dist = anchor_distance(a.x, a.anchors_t, token, g % a.heads, anchor, a.d, a.m);
        a.kernel[token * a.m + anchor] = dist;
        acc += dist;
      }
      const double total = block_total(acc, scratch);
      if (threadIdx.x == 0) a.partial_dist[item] = total;
    }
    grid.sync();
    // (B) 1/(2σ) per group, σ = max(mean distance, tiny)
    for (long long g = warp; g < a.groups; g += warps) {
      const double sum = warp_strided_sum(a.partial_dist + g * a.chunks, a.chunks, 1);
      if (lane0) {
        const float per_group = static_cast<float>(a.n * a.m);
        const float sigma = fmaxf(__fmul_rn(static_cast<float>(sum), 1.0f / per_group), kMinSigma);
        a.inv[g] = 1.0f / __fmul_rn(2.0f, sigma);
      }
    }
    grid.sync();
    // (C) k = exp(−dist/(2σ)) in place and each anchor's column sum per chunk. The anchors are taken `width` at a
    // time: thread t takes anchor t % width of them in the chunk's tokens t / width, t / width + rows, … (rows
    // token lanes), whole rows a pass; each column's lanes are then added in lane order.
    const unsigned width = min(static_cast<unsigned>(a.m), kFusedThreads), rows = kFusedThreads / width;
    const unsigned lane_row = threadIdx.x / width, offset = threadIdx.x % width;
    for (long long item = blockIdx.x; item < items; item += gridDim.x) {
      const long long first = first_of(item), count = count_of(item);
      const float scale = -a.inv[group_of(item)];
      for (int first_anchor = 0; first_anchor < a.m; first_anchor += static_cast<int>(width)) {
        const int anchor = first_anchor + static_cast<int>(offset);
        double acc = 0.0;
        if (lane_row < rows && anchor < a.m) {
          for (long long i = lane_row; i < count; i += rows) {
            float* k = a.kernel + (first + i) * a.m + anchor;
            const float value = rbf_exp(__fmul_rn(*k, scale));
            *k = value;
            acc += value;
          }
        }
        scratch[threadIdx.x] = acc;
        __syncthreads();
        if (threadIdx.x < width && anchor < a.m) {
          double column = 0.0;
          for (unsigned r = 0; r < rows; ++r) column += scratch[r * width + threadIdx.x];
          a.partial_kernel[item * a.m + anchor] = column;
        }
        __syncthreads();  // scratch is reused by the next anchors
      }
    }
    grid.sync();
    // (D) each anchor's mean over the group's n tokens
    for (long long e = warp; e < a.groups * a.m; e += warps) {
      const long long g = e / a.m;
      const double sum = warp_strided_sum(a.partial_kernel + g * a.chunks * a.m + e % a.m, a.chunks, a.m);
      if (lane0) a.mean[e] = __fmul_rn(static_cast<float>(sum), 1.0f / static_cast<float>(a.n));
    }
    grid.sync();
  }
  // (E) each chunk's codes, a thread a token (normalised here when the features are the rows themselves), then
  // the chunk's partial sums
  const int floats = a.b * a.d + a.d;
  for (long long item = blockIdx.x; item < items; item += gridDim.x) {
    const long long g = group_of(item), first = first_of(item), count = count_of(item);
    if (threadIdx.x < count) {
      const long long token = first + threadIdx.x;
      if (!a.kernel) normalize_row(a.qk, a.x, token, a.d);
      const int f_len = a.kernel ? a.m : a.d;
      const float* w = a.projection ? a.projection + (g % a.heads) * a.b * f_len : nullptr;
      hash_token(a.kernel ? a.kernel : a.x, f_len, a.kernel ? a.mean + g * a.m : nullptr, w, a.b, token, a.words,
                 a.real);
    }
    __syncthreads();  // the partial sums read every code of the chunk
    const long long local = first - g * a.n;
    chunk_context_partials(a.codes, a.v, a.n, g, local, local + count, a.d, a.b, a.partial_f + item * floats,
                           a.partial_s + item * a.b);
  }
  grid.sync();
  // (F) per group M, c·z and s: the chunks' partials added in chunk order, a thread an element
  for (long long e = thread; e < a.groups * (floats + a.b); e += threads) {
    const long long g = e / (floats + a.b);
    const int local = static_cast<int>(e % (floats + a.b));
    if (local < floats) {
      float acc = 0.0f;
#pragma unroll 8
      for (long long c = 0; c < a.chunks; ++c) acc += a.partial_f[(g * a.chunks + c) * floats + local];
      a.ctx_z[g * floats + local] = local < a.b * a.d ? acc : a.bias * acc;
    } else {
      typename Codes::Sum acc = 0;
#pragma unroll 8
      for (long long c = 0; c < a.chunks; ++c) acc += a.partial_s[(g * a.chunks + c) * a.b + (local - floats)];
      a.sums[g * a.b + (local - floats)] = acc;
    }
  }
  grid.sync();
  // (G) out_i,k = (h_i·M + c·z)_k · 1/(h_i·s + c·N), a thread an output
  for (long long e = thread; e < a.groups * a.n * a.d; e += threads) {
    const long long i = e / a.d;
    const int k = static_cast<int>(e % a.d);
    const typename Codes::Sum* s = a.sums + (i / a.n) * a.b;
    typename Codes::Sum den = a.codes.times(i, 0, s[0]);
    for (int r = 1; r < a.b; ++r) den += a.codes.times(i, r, s[r]);
    const float inv_den = 1.0f / static_cast<float>(den + a.bias_n);
    const float* mz = a.ctx_z + (i / a.n) * floats;
    float acc = a.codes.times(i, 0, mz[k]);
    for (int r = 1; r < a.b; ++r) acc += a.codes.times(i, r, mz[r * a.d + k]);
    a.out[e] = (acc + mz[a.b * a.d + k]) * inv_den;
  }
}

/// The fused kernel's cooperative launch: at most as many blocks as can be resident at once on the current device
/// (a grid-wide barrier needs every block running), and no more than its widest phase has work for (each block
/// pays for every barrier). Sized before any timer starts.
template <class Codes, class Word>
class FusedHashedLaunch {
 public:
  /// `work_blocks`: the blocks of kFusedThreads the widest phase could keep busy.
  explicit FusedHashedLaunch(std::uint64_t work_blocks) {
    int device = 0, cooperative = 0, per_sm = 0;
    cuda::check(cudaGetDevice(&device), "cudaGetDevice");
    cuda::check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), "cudaDeviceGetAttribute");
    if (!cooperative) throw Error("hashed attention on the GPU needs cooperative launches, which this device lacks");
    cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fused_hashed_kernel<Codes, Word>,
                                                              static_cast<int>(kFusedThreads), 0),
                "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (per_sm < 1) throw Error("the fused hashed-attention kernel cannot be resident on this device");
    const std::uint64_t resident = static_cast<std::uint64_t>(per_sm) * device_sms();
    blocks_ = static_cast<unsigned>(std::clamp<std::uint64_t>(work_blocks, 1, resident));
  }
  void operator()(FusedHashed<Codes, Word> args) const {
    void* params[] = {&args};
    cuda::check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&fused_hashed_kernel<Codes, Word>),
                                            dim3(blocks_), dim3(kFusedThreads), params, 0, nullptr),
                "hashed attention (fused, cooperative launch)");
  }

 private:
  unsigned blocks_ = 0;
};

}  // namespace ecosim::ecoformer::detail
