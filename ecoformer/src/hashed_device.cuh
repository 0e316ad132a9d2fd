// Internal (CUDA sources of hashed attention only): the per-element steps of hashed attention on the GPU, shared
// by the separate kernels of the causal and decode forms (hashed_attention_cuda.cu) and the fused non-causal
// kernel (hashed_fused.cuh). The hash's steps keep the CPU reference's summation order with explicitly rounded
// fp32 operations (no FMA contraction), so the codes match the CPU bit for bit except at ties; the context sums
// add in token order (for fp-ecoformer's real codes the compiler may fuse a product and its sum: within 1e-4). The
// loops over a row or a chunk's tokens are unrolled so that their independent loads are issued together: the sums
// stay in order, and a thread waits on memory once per four or eight tokens instead of once per token.
#pragma once
#include "hashed_common.hpp"

namespace ecosim::ecoformer::detail {

/// Row `row` of x (d values) divided by max(‖row‖, eps), into the same row of out; a row whose Σx² overflows fp32
/// scaled by kHugeRowScale first (as unit_row_of_huge on the CPU; the scale 1 otherwise, which changes nothing).
__device__ inline void normalize_row(const float* x, float* out, long long row, int d) {
  const float* in = x + row * d;
  float norm2 = 0.0f, scale = 1.0f;
#pragma unroll 8
  for (int c = 0; c < d; ++c) norm2 = __fadd_rn(norm2, __fmul_rn(in[c], in[c]));
  if (!isfinite(norm2)) {
    scale = kHugeRowScale;
    norm2 = 0.0f;
    for (int c = 0; c < d; ++c) norm2 = __fadd_rn(norm2, __fmul_rn(__fmul_rn(in[c], scale), __fmul_rn(in[c], scale)));
  }
  const float inv = 1.0f / fmaxf(sqrtf(norm2), kNormEps);
  for (int c = 0; c < d; ++c) out[row * d + c] = __fmul_rn(__fmul_rn(in[c], scale), inv);
}

/// ‖x_token − anchor_{head, a}‖², summed over c in order. The anchors are read transposed,
/// anchors_t[(head·d + c)·m + a], so the threads of a warp (consecutive anchors) load consecutive words.
__device__ inline float anchor_distance(const float* x, const float* anchors_t, long long token, long long head, int a,
                                        int d, int m) {
  const float* xi = x + token * d;
  const float* an = anchors_t + head * d * m + a;
  float sum = 0.0f;
#pragma unroll 8
  for (int c = 0; c < d; ++c) {
    const float diff = __fsub_rn(xi[c], an[static_cast<long long>(c) * m]);
    sum = __fadd_rn(sum, __fmul_rn(diff, diff));
  }
  return sum;
}

/// One token's hash: y_r = Σ_c w_r,c·(f_c − mean_c) (or y_r = f_r − mean_r without a projection; no centring
/// where `mean` is null), w the head's projection [bits][f_len]; then the packed signs into words[token]
/// (words != nullptr) or the real values into real[token][bits] (fp-ecoformer).
template <class Word>
__device__ inline void hash_token(const float* f, int f_len, const float* mean, const float* w, int bits,
                                  long long token, Word* words, float* real) {
  const float* fi = f + token * f_len;
  const auto feature = [&](int c) { return mean ? __fsub_rn(fi[c], mean[c]) : fi[c]; };
  Word packed = 0;
  for (int r = 0; r < bits; ++r) {
    float y = 0.0f;
    if (w) {
#pragma unroll 8
      for (int c = 0; c < f_len; ++c) y = __fadd_rn(y, __fmul_rn(w[r * f_len + c], feature(c)));
    } else {
      y = feature(r);  // bi-ecoformer: bits = f_len = d
    }
    if (words) {
      if (y > 0.0f) packed = static_cast<Word>(packed | (Word{1} << r));
    } else {
      real[token * bits + r] = y;
    }
  }
  if (words) words[token] = packed;
}

/// The block's work of chunk_context_partials with P rows a batch: items (column k, P rows of [M; z]) and (P
/// entries of s), a thread an item at a time; for each token, the thread loads v_jk and the token's codes once for
/// its P sums (one thread an element loaded them once an element). Each sum still adds the tokens in order.
template <int P, class Codes>
__device__ inline void context_batches(Codes codes, const float* v, long long n, long long g, long long first,
                                       long long last, int d, int bits, float* partial_f,
                                       typename Codes::Sum* partial_s) {
  const int rows = bits + 1;  // M's b rows, then z
  const int f_items = d * ((rows + P - 1) / P), items = f_items + (bits + P - 1) / P;
  for (int item = threadIdx.x; item < items; item += blockDim.x) {
    if (item < f_items) {
      const int k = item % d, r0 = item / d * P;
      float acc[P] = {};
#pragma unroll 4
      for (long long j = first; j < last; ++j) {
        const long long i = g * n + j;
        const float value = v[i * d + k];
#pragma unroll
        for (int p = 0; p < P; ++p) {
          if (r0 + p < bits) {
            acc[p] += codes.times(i, r0 + p, value);
          } else if (r0 + p == bits) {
            acc[p] += value;
          }
        }
      }
#pragma unroll
      for (int p = 0; p < P; ++p)
        if (r0 + p < rows) partial_f[(r0 + p) * d + k] = acc[p];
    } else {
      const int r0 = (item - f_items) * P;
      typename Codes::Sum acc[P] = {};
#pragma unroll 4
      for (long long j = first; j < last; ++j) {
#pragma unroll
        for (int p = 0; p < P; ++p)
          if (r0 + p < bits) acc[p] += codes.code(g * n + j, r0 + p);
      }
#pragma unroll
      for (int p = 0; p < P; ++p)
        if (r0 + p < bits) partial_s[r0 + p] = acc[p];
    }
  }
}

/// The most sums a thread of chunk_context_partials takes at once: 4 (more, and the fused kernel spills registers);
/// fp-ecoformer's real codes one (its fused kernel spills at 2).
template <class Codes>
inline constexpr int kMaxContextBatch = 4;
template <>
inline constexpr int kMaxContextBatch<RealCodes> = 1;

/// The block's threads together: partial sums over tokens [first, last) of group g of M = Σ h_j v_jᵀ (b×d),
/// z = Σ v_j (d) and s = Σ h_j (b), into `partial_f` [b·d + d] and `partial_s` [b] — each element a sum in token
/// order. A thread takes P of them at once (context_batches), P the fewest of 1, 2, 4 that give every thread of
/// the block at most one batch (d = 32, b = 16: 4), at most kMaxContextBatch.
template <class Codes>
__device__ inline void chunk_context_partials(Codes codes, const float* v, long long n, long long g, long long first,
                                              long long last, int d, int bits, float* partial_f,
                                              typename Codes::Sum* partial_s) {
  const auto batch_items = [&](int p) { return d * ((bits + p) / p) + (bits + p - 1) / p; };
  int p = 1;
  while (p < kMaxContextBatch<Codes> && batch_items(p) > static_cast<int>(blockDim.x)) p *= 2;
  if constexpr (kMaxContextBatch<Codes> >= 4) {
    if (p == 4) return context_batches<4>(codes, v, n, g, first, last, d, bits, partial_f, partial_s);
    if (p == 2) return context_batches<2>(codes, v, n, g, first, last, d, bits, partial_f, partial_s);
  }
  context_batches<1>(codes, v, n, g, first, last, d, bits, partial_f, partial_s);
}

}  // namespace ecosim::ecoformer::detail
