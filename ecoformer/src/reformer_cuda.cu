// CUDA Reformer-style LSH attention, the same algorithm as reformer_cpu.cpp: normalise the shared keys,
// rotate (batched GEMM, rotations drawn on the host), argmax buckets, one global sort of 64-bit keys
// (segment, bucket, position) — unique, so the order equals a stable sort by bucket; CUB's radix sort with its
// temporary storage allocated before the timer starts — gather, chunked
// attention (one thread per sorted query, online over its keys, its own key masked) scattered back to token order, and
// the rounds combined by their normalisers.
#include <cmath>
#include <cub/device/device_radix_sort.cuh>

#include "baseline_kernels.hpp"
#include "batched_gemm.cuh"
#include "ecosim/kernels/cuda_support.cuh"
#include "ecosim/ops_counter/checked.hpp"
#include "hashed_common.hpp"

namespace ecosim::ecoformer::detail {

namespace {
constexpr unsigned kThreads = 128;
constexpr std::uint64_t kMaxHeadDim = 128;
constexpr float kNormEpsilon = 1e-12f;

long long ll(std::uint64_t x) { return static_cast<long long>(x); }

__global__ void normalize_rows(const float* x, float* unit, long long rows, int d) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < d; ++c) sum += x[r * d + c] * x[r * d + c];
  if (!isfinite(sum)) return unit_row_of_huge(x + r * d, unit + r * d, d);  // |x| ≳ 1e19: still a unit row
  const float inverse = 1.0f / fmaxf(sqrtf(sum), kNormEpsilon);
  for (int c = 0; c < d; ++c) unit[r * d + c] = x[r * d + c] * inverse;
}

/// sort_keys[(group·R + round)·n + token] = ((group·R + round)·buckets + bucket)·n + token.
__global__ void bucket_keys(const float* rotated, unsigned long long* sort_keys, long long groups, long long n,
                            long long rounds, long long half) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= groups * rounds * n) return;
  const long long token = i % n, round = (i / n) % rounds, group = i / (n * rounds);
  const float* row = rotated + (group * n + token) * rounds * half + round * half;
  long long best = 0;
  float best_value = row[0];
  for (long long b = 1; b < 2 * half; ++b) {  // [xR, −xR]: the first maximum wins, as on the CPU
    const float value = b < half ? row[b] : -row[b - half];
    if (value > best_value) best = b, best_value = value;
  }
  const long long segment = group * rounds + round;
  sort_keys[i] = static_cast<unsigned long long>((segment * 2 * half + best) * n + token);
}

/// Sorted copies of q, the unit keys and v for every (group, round) segment.
__global__ void gather_sorted(const unsigned long long* sorted, const float* q, const float* unit, const float* v,
                              float* sq, float* sk, float* sv, long long segments, long long rounds, long long n,
                              int d) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= segments * n * d) return;
  const long long c = i % d, slot = i / d, group = (slot / n) / rounds;
  const long long token = static_cast<long long>(sorted[slot] % static_cast<unsigned long long>(n));
  const long long source = (group * n + token) * d + c;
  sq[i] = q[source];
  sk[i] = unit[source];
  sv[i] = v[source];
}

struct ChunkShape {
  long long n, chunk, chunks, before;
};

/// One thread per sorted query: its chunk and the `before` preceding ones (wrapping), online softmax;
/// writes numerator, normaliser and maximum at the query's token position (the unsort).
template <int kMaxD>
__global__ void chunk_attention(const unsigned long long* sorted, const float* sq, const float* sk, const float* sv,
                                float* numerator, float* normaliser, float* maximum, long long segments, ChunkShape s,
                                int d, float scale) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= segments * s.n) return;
  const long long segment = i / s.n, pos = i % s.n, chunk = pos / s.chunk;
  const long long base = segment * s.n;
  // q in registers up to head width 64; at 128, q and acc would need 256 registers a thread and spill, so q is
  // read from memory (its row stays cached).
  constexpr bool kQInRegisters = kMaxD <= 64;
  const float* q_mem = sq + i * d;
  float q_row[kQInRegisters ? kMaxD : 1], acc[kMaxD];
#pragma unroll
  for (int c = 0; c < kMaxD; ++c) {
    if constexpr (kQInRegisters) q_row[c] = c < d ? q_mem[c] : 0.0f;
    acc[c] = 0.0f;
  }
  float row_max = -INFINITY, row_sum = 0.0f;
  for (long long j = 0; j <= s.before; ++j) {
    const long long kc = (chunk + s.chunks - j) % s.chunks;
    const long long first = kc * s.chunk, last = kc + 1 < s.chunks ? first + s.chunk : s.n;
    for (long long key = first; key < last; ++key) {
      const float* k_row = sk + (base + key) * d;
      const float* v_row = sv + (base + key) * d;
      float score = 0.0f;
#pragma unroll
      for (int c = 0; c < kMaxD; ++c) {
        if constexpr (kQInRegisters) {
          if (c < d) score += q_row[c] * k_row[c];
        } else {
          if (c < d) score += q_mem[c] * k_row[c];
        }
      }
      score = key == pos ? kReformerSelfScore : score * scale;
      const float new_max = fmaxf(row_max, score);
      const float rescale = expf(row_max - new_max), p = expf(score - new_max);
      row_sum = row_sum * rescale + p;
#pragma unroll
      for (int c = 0; c < kMaxD; ++c)
        if (c < d) acc[c] = acc[c] * rescale + p * v_row[c];
      row_max = new_max;
    }
  }
  const long long token = static_cast<long long>(sorted[i] % static_cast<unsigned long long>(s.n));
  const long long out = base + token;
#pragma unroll
  for (int c = 0; c < kMaxD; ++c)  // constant bounds keep acc in registers
    if (c < d) numerator[out * d + c] = acc[c];
  normaliser[out] = row_sum;
  maximum[out] = row_max;
}

/// out = Σ_r w_r·numerator_r / Σ_r w_r·normaliser_r with w_r = exp(max_r − max over rounds).
__global__ void combine_rounds(const float* numerator, const float* normaliser, const float* maximum, float* out,
                               long long groups, long long rounds, long long n, int d) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= groups * n) return;
  const long long group = i / n, token = i % n;
  float global_max = -INFINITY;
  for (long long r = 0; r < rounds; ++r) global_max = fmaxf(global_max, maximum[(group * rounds + r) * n + token]);
  float denominator = 0.0f;
  for (int c = 0; c < d; ++c) out[i * d + c] = 0.0f;
  for (long long r = 0; r < rounds; ++r) {
    const long long slot = (group * rounds + r) * n + token;
    const float w = expf(maximum[slot] - global_max);
    denominator += w * normaliser[slot];
    for (int c = 0; c < d; ++c) out[i * d + c] += w * numerator[slot * d + c];
  }
  const float inverse = 1.0f / denominator;
  for (int c = 0; c < d; ++c) out[i * d + c] *= inverse;
}

template <int kMaxD>
void launch_chunks(const unsigned long long* sorted, const float* sq, const float* sk, const float* sv, float* num,
                   float* l, float* m, std::uint64_t segments, ChunkShape s, std::uint64_t d) {
  chunk_attention<kMaxD><<<cuda::blocks_for(segments * static_cast<std::uint64_t>(s.n), kThreads), kThreads>>>(
      sorted, sq, sk, sv, num, l, m, ll(segments), s, static_cast<int>(d), 1.0f / std::sqrt(static_cast<float>(d)));
  cuda::check_launch("chunk_attention");
}
}  // namespace

RunResult reformer_cuda(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                        const Reporter& report) {
  const stages::ReformerPlan p = stages::reformer_plan(c);
  const std::uint64_t g = c.batch * c.heads, n = c.seq, d = c.head_dim, half = p.buckets / 2;
  if (d > kMaxHeadDim)
    throw Error("CUDA Reformer supports head dim ≤ " + std::to_string(kMaxHeadDim) + ", got " + std::to_string(d));
  const std::uint64_t segments = checked_mul(g, p.rounds);
  if (checked_product({segments, p.buckets, n}) > (std::uint64_t{1} << 63))
    throw Error("CUDA Reformer: sort keys of " + std::to_string(segments) + " segments overflow 64 bits");
  const cuda::DeviceBuffer<float> q(in.q.data), v(in.v.data);
  const cuda::DeviceBuffer<float> rotations(parameters.at("rotations"));
  cuda::DeviceBuffer<float> unit(g * n * d), rotated(g * n * p.rounds * half);
  cuda::DeviceBuffer<unsigned long long> keys(segments * n), sort_keys(segments * n);  // unsorted, sorted
  std::size_t sort_bytes = 0;
  cuda::check(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys.get(), sort_keys.get(), segments * n),
              "radix sort storage size");
  cuda::DeviceBuffer<unsigned char> sort_storage(sort_bytes);
  cuda::DeviceBuffer<float> sq(segments * n * d), sk(segments * n * d), sv(segments * n * d);
  cuda::DeviceBuffer<float> numerator(segments * n * d), normaliser(segments * n), maximum(segments * n);
  cuda::DeviceBuffer<float> out(g * n * d);
  cuda::EventTimer timer;
  normalize_rows<<<cuda::blocks_for(g * n, kThreads), kThreads>>>(q.get(), unit.get(), ll(g * n), static_cast<int>(d));
  cuda::check_launch("normalize_rows");
  batched_gemm({unit.get(), ll(n * d), ll(d), 1}, {rotations.get(), 0, ll(p.rounds * half), 1}, rotated.get(), g, n,
               p.rounds * half, d);
  bucket_keys<<<cuda::blocks_for(segments * n, kThreads), kThreads>>>(rotated.get(), keys.get(), ll(g), ll(n),
                                                                      ll(p.rounds), ll(half));
  cuda::check_launch("bucket_keys");
  cuda::check(cub::DeviceRadixSort::SortKeys(sort_storage.get(), sort_bytes, keys.get(), sort_keys.get(), segments * n),
              "radix sort");
  gather_sorted<<<cuda::blocks_for(segments * n * d, kThreads), kThreads>>>(
      sort_keys.get(), q.get(), unit.get(), v.get(), sq.get(), sk.get(), sv.get(), ll(segments), ll(p.rounds), ll(n),
      static_cast<int>(d));
  cuda::check_launch("gather_sorted");
  report([=] { return stages::reformer_hashing(c); });
  const ChunkShape shape{ll(n), ll(p.chunk), ll(p.chunks), ll(p.before)};
  const auto chunks = d <= 32 ? &launch_chunks<32> : d <= 64 ? &launch_chunks<64> : &launch_chunks<128>;
  chunks(sort_keys.get(), sq.get(), sk.get(), sv.get(), numerator.get(), normaliser.get(), maximum.get(), segments,
         shape, d);
  report([=] { return stages::reformer_chunk_attention(c); });
  combine_rounds<<<cuda::blocks_for(g * n, kThreads), kThreads>>>(
      numerator.get(), normaliser.get(), maximum.get(), out.get(), ll(g), ll(p.rounds), ll(n), static_cast<int>(d));
  cuda::check_launch("combine_rounds");
  const double ms = timer.stop_ms();
  report([=] { return stages::reformer_combine(c); });
  return cuda_result(c, out.download(), ms);
}

}  // namespace ecosim::ecoformer::detail
