// CUDA softmax attention (MSA, 1/√d scaling) in the online form: each thread owns one query row (the output
// accumulator in registers, and q too up to head width 64; at 128 the two would need 256 registers a thread and
// spill, so q is read from memory, where its row stays cached), the block streams tiles of keys and values
// through shared memory and keeps a running row maximum and sum, so no n×keys matrix exists at any sequence
// length (N = 16384 fits). Inputs are fp32 or fp16 (converted to fp32 on load); arithmetic is fp32. Causal
// (config.causal): query i of n over `keys` sees the keys up to keys − n + i; a block stops after the last key its
// last row sees, and a row's later keys in that tile score −∞ (weight 0). Key 0, seen by every row, is in the
// first tile, so no row's running maximum stays −∞. Decoding (msa_decode_state_cuda): the K/V cache on the
// device, [group][capacity][d], grown by doubling; a step's one query a group is split over the cache
// (FlashDecoding's split-KV): blocks of kDecodeWarps warps each take kDecodeKeysPerSplit keys, a warp
// kDecodeKeysAtOnce keys at a time (their rows loaded in one step) with its lanes across the head width, each keeping
// an online softmax (maximum, sum, weighted values), the warps of a block then its splits combined by rescaling to
// their common maximum.
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>

#include "baseline_kernels.hpp"
#include "decode_states.hpp"
#include "ecosim/ecoformer/msa_kernel_geometry.hpp"
#include "ecosim/kernels/cuda_support.cuh"

namespace ecosim::ecoformer::detail {

namespace {
constexpr int kQueries = kMsaBlockRows;  // threads (query rows) per block
constexpr int kKeyTile = kMsaKeyTile;    // keys per shared-memory tile
constexpr std::uint64_t kMaxHeadDim = 128;
constexpr int kDecodeWarps = kMsaDecodeWarps;
constexpr std::uint64_t kDecodeKeysPerSplit = kMsaDecodeKeysPerSplit;
constexpr int kDecodeKeysAtOnce = kMsaDecodeKeysAtOnce;

__device__ float to_float(float x) { return x; }
__device__ float to_float(__half x) { return __half2float(x); }

template <int kMaxD, class T>
__global__ void online_softmax_attention(const T* q, const T* k, const T* v, float* out, long long n, long long keys,
                                         int d, float scale, bool causal) {
  extern __shared__ float shared[];
  float* k_tile = shared;                 // [kKeyTile][d]
  float* v_tile = k_tile + kKeyTile * d;  // [kKeyTile][d]
  float* s_tile = v_tile + kKeyTile * d;  // [kKeyTile][kQueries]: this thread's scores of the tile
  const long long group = blockIdx.y;
  const long long row = static_cast<long long>(blockIdx.x) * kQueries + threadIdx.x;
  const bool active = row < n;
  const T* kg = k + group * keys * d;
  const T* vg = v + group * keys * d;
  constexpr bool kQInRegisters = kMaxD <= 64;
  const T* q_mem = q + (group * n + (active ? row : 0)) * d;  // an inactive row reads row 0, never stored
  float q_row[kQInRegisters ? kMaxD : 1], acc[kMaxD];
#pragma unroll
  for (int c = 0; c < kMaxD; ++c) {
    if constexpr (kQInRegisters) q_row[c] = active && c < d ? to_float(q_mem[c]) : 0.0f;
    acc[c] = 0.0f;
  }
  float row_max = -INFINITY, row_sum = 0.0f;
  const long long shift = keys - n;  // causal: row r sees the keys ≤ shift + r
  const long long last_row = min(n, static_cast<long long>(blockIdx.x + 1) * kQueries) - 1;
  const long long block_keys = causal ? min(keys, shift + last_row + 1) : keys;  // the same for the whole block
  for (long long k0 = 0; k0 < block_keys; k0 += kKeyTile) {
    const int kn = static_cast<int>(block_keys - k0 < kKeyTile ? block_keys - k0 : kKeyTile);
    for (int e = threadIdx.x; e < kn * d; e += kQueries) {
      k_tile[e] = to_float(kg[k0 * d + e]);
      v_tile[e] = to_float(vg[k0 * d + e]);
    }
    __syncthreads();
    float tile_max = -INFINITY;
    for (int j = 0; j < kn; ++j) {
      float s = 0.0f;
#pragma unroll
      for (int c = 0; c < kMaxD; ++c) {
        if constexpr (kQInRegisters) {
          if (c < d) s += q_row[c] * k_tile[j * d + c];
        } else {
          if (c < d) s += to_float(q_mem[c]) * k_tile[j * d + c];
        }
      }
      s = causal && k0 + j > shift + row ? -INFINITY : s * scale;
      s_tile[j * kQueries + threadIdx.x] = s;
      tile_max = fmaxf(tile_max, s);
    }
    const float new_max = fmaxf(row_max, tile_max);
    const float rescale = expf(row_max - new_max);  // 0 for the first tile (row_max = −∞)
    row_sum *= rescale;
#pragma unroll
    for (int c = 0; c < kMaxD; ++c) acc[c] *= rescale;
    for (int j = 0; j < kn; ++j) {
      const float p = expf(s_tile[j * kQueries + threadIdx.x] - new_max);
      row_sum += p;
#pragma unroll
      for (int c = 0; c < kMaxD; ++c)
        if (c < d) acc[c] += p * v_tile[j * d + c];
    }
    row_max = new_max;
    __syncthreads();  // the tiles are overwritten next
  }
  if (active) {
    const float inverse = 1.0f / row_sum;
#pragma unroll
    for (int c = 0; c < kMaxD; ++c)  // constant bounds keep acc in registers
      if (c < d) out[(group * n + row) * d + c] = acc[c] * inverse;
  }
}

template <int kMaxD, class T>
void launch(const T* q, const T* k, const T* v, float* out, std::uint64_t g, std::uint64_t n, std::uint64_t keys,
            std::uint64_t d, bool causal) {
  const std::size_t shared_bytes = sizeof(float) * (2 * kKeyTile * d + kKeyTile * kQueries);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (std::uint64_t first = 0; first < g; first += cuda::kMaxGridYZ) {  // grid y is limited to 65535
    const std::uint64_t count = std::min(cuda::kMaxGridYZ, g - first);
    const dim3 grid(cuda::blocks_for(n, kQueries), static_cast<unsigned>(count));
    online_softmax_attention<kMaxD, T><<<grid, kQueries, shared_bytes>>>(
        q + first * n * d, k + first * keys * d, v + first * keys * d, out + first * n * d, static_cast<long long>(n),
        static_cast<long long>(keys), static_cast<int>(d), scale, causal);
    cuda::check_launch("online_softmax_attention");
  }
}

template <class T>
void softmax_attention(const T* q, const T* k, const T* v, float* out, std::uint64_t g, std::uint64_t n,
                       std::uint64_t keys, std::uint64_t d, bool causal) {
  if (d > kMaxHeadDim)
    throw Error("CUDA softmax attention supports head dim ≤ " + std::to_string(kMaxHeadDim) + ", got " +
                std::to_string(d) + " (use --device cpu)");
  if (causal && keys < n) throw Error("causal attention needs at least as many keys as queries");
  if (d <= 16) return launch<16>(q, k, v, out, g, n, keys, d, causal);
  if (d <= 32) return launch<32>(q, k, v, out, g, n, keys, d, causal);
  if (d <= 64) return launch<64>(q, k, v, out, g, n, keys, d, causal);
  launch<128>(q, k, v, out, g, n, keys, d, causal);
}

/// One step's partial softmax sums over the keys [split·kDecodeKeysPerSplit, …) of group blockIdx.y (+ first_group):
/// a warp kDecodeKeysAtOnce keys a step (lanes across the head width, lane l holding widths l, l + 32, …), each warp
/// an online softmax,
/// the block's warps then rescaled to their common maximum: m, l and acc[d] into the split's partial.
template <int kMaxD>
__global__ void decode_partials(const float* q, const float* k, const float* v, float* partial_max, float* partial_sum,
                                float* partial_acc, long long first_group, long long keys, long long kv_rows, int d,
                                float scale, long long splits) {
  constexpr int kPerLane = kMaxD < 32 ? 1 : kMaxD / 32;
  __shared__ float warp_max[kDecodeWarps], warp_sum[kDecodeWarps], warp_acc[kDecodeWarps][kMaxD];
  const long long group = first_group + blockIdx.y, split = blockIdx.x;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const float* qg = q + group * d;
  const float* kg = k + group * kv_rows * d;
  const float* vg = v + group * kv_rows * d;
  float q_lane[kPerLane], acc[kPerLane];
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int c = lane + 32 * i;
    q_lane[i] = c < d ? qg[c] : 0.0f;
    acc[i] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;
  const long long first = split * static_cast<long long>(kDecodeKeysPerSplit);
  const long long last = min(keys, first + static_cast<long long>(kDecodeKeysPerSplit));
  // kDecodeKeysAtOnce keys a warp step, their key and value rows loaded before any is used, meant to put that many
  // rows in flight a warp. Measured on the lent H200 (session 26, docs/gpu-check-s26-decode.md) the loads still ran
  // one after another, probably because each sits in a branch (a key past the split, a lane past the width)
  // the compiler does not hoist it out of; accel_model's GPU model prices the kernel as measured.
  constexpr int kAtOnce = kDecodeKeysAtOnce;
  for (long long j0 = first + warp * kAtOnce; j0 < last; j0 += kDecodeWarps * kAtOnce) {
    float dot[kAtOnce], value[kAtOnce][kPerLane];
#pragma unroll
    for (int u = 0; u < kAtOnce; ++u) {
      const long long j = j0 + u;
      dot[u] = 0.0f;
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) {
        const int c = lane + 32 * i;
        const bool here = j < last && c < d;
        if (here) dot[u] += q_lane[i] * kg[j * d + c];
        value[u][i] = here ? vg[j * d + c] : 0.0f;
      }
    }
#pragma unroll
    for (int u = 0; u < kAtOnce; ++u)
      for (int offset = 16; offset > 0; offset /= 2) dot[u] += __shfl_xor_sync(0xffffffffu, dot[u], offset);
    float m_new = m;
#pragma unroll
    for (int u = 0; u < kAtOnce; ++u)
      if (j0 + u < last) m_new = fmaxf(m_new, dot[u] * scale);
    const float rescale = expf(m - m_new);  // 0 while m is −∞
    l *= rescale;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) acc[i] *= rescale;
#pragma unroll
    for (int u = 0; u < kAtOnce; ++u) {
      const float weight = j0 + u < last ? expf(dot[u] * scale - m_new) : 0.0f;
      l += weight;
#pragma unroll
      for (int i = 0; i < kPerLane; ++i) acc[i] += weight * value[u][i];
    }
    m = m_new;
  }
  if (lane == 0) warp_max[warp] = m, warp_sum[warp] = l;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i)
    if (lane + 32 * i < kMaxD) warp_acc[warp][lane + 32 * i] = acc[i];
  __syncthreads();
  float block_max = -INFINITY;
  for (int w = 0; w < kDecodeWarps; ++w) block_max = fmaxf(block_max, warp_max[w]);
  const long long out = group * splits + split;
  if (threadIdx.x == 0) {
    float sum = 0.0f;  // a warp without keys has m = −∞ and l = 0: it adds nothing
    for (int w = 0; w < kDecodeWarps; ++w)
      if (warp_sum[w] > 0.0f) sum += warp_sum[w] * expf(warp_max[w] - block_max);
    partial_max[out] = block_max, partial_sum[out] = sum;
  }
  for (int c = static_cast<int>(threadIdx.x); c < d; c += kDecodeWarps * 32) {
    float value = 0.0f;
    for (int w = 0; w < kDecodeWarps; ++w)
      if (warp_sum[w] > 0.0f) value += warp_acc[w][c] * expf(warp_max[w] - block_max);
    partial_acc[out * d + c] = value;
  }
}

/// The step's output of each group from its splits' partials: each rescaled to the largest maximum, summed, divided
/// by the summed weights. A block a group: its threads find the largest maximum together (each a stride of the
/// splits, then the block's), each warp sums every kDecodeWarps-th split (lanes across the head width), and the
/// warps' sums are added in warp order — a fixed order, so the result does not depend on the schedule.
template <int kMaxD>
__global__ void decode_combine(const float* partial_max, const float* partial_sum, const float* partial_acc, float* out,
                               long long splits, int d) {
  constexpr int kPerLane = kMaxD < 32 ? 1 : kMaxD / 32;
  __shared__ float warp_value[kDecodeWarps], warp_acc[kDecodeWarps][kMaxD];
  const long long group = blockIdx.x, first = group * splits;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  float largest = -INFINITY;
  for (long long s = threadIdx.x; s < splits; s += kDecodeWarps * 32) largest = fmaxf(largest, partial_max[first + s]);
  for (int offset = 16; offset > 0; offset /= 2)
    largest = fmaxf(largest, __shfl_xor_sync(0xffffffffu, largest, offset));
  if (lane == 0) warp_value[warp] = largest;
  __syncthreads();
  for (int w = 0; w < kDecodeWarps; ++w) largest = fmaxf(largest, warp_value[w]);
  __syncthreads();  // warp_value is reused for the sums below
  float sum = 0.0f, acc[kPerLane];
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) acc[i] = 0.0f;
#pragma unroll kDecodeKeysAtOnce
  for (long long s = warp; s < splits; s += kDecodeWarps) {  // unrolled: meant to overlap the splits' loads
    const float weight = expf(partial_max[first + s] - largest);
    sum += partial_sum[first + s] * weight;
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int c = lane + 32 * i;
      if (c < d) acc[i] += partial_acc[(first + s) * d + c] * weight;
    }
  }
  if (lane == 0) warp_value[warp] = sum;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i)
    if (lane + 32 * i < kMaxD) warp_acc[warp][lane + 32 * i] = acc[i];
  __syncthreads();
  float total = 0.0f;
  for (int w = 0; w < kDecodeWarps; ++w) total += warp_value[w];
  for (int c = static_cast<int>(threadIdx.x); c < d; c += kDecodeWarps * 32) {
    float value = 0.0f;
    for (int w = 0; w < kDecodeWarps; ++w) value += warp_acc[w][c];
    out[group * d + c] = value / total;
  }
}

/// A decode step: the query of each of g groups (q [g][d]) over the first `keys` rows of each group's cache
/// ([g][kv_rows][d]), split-KV, into out [g][d]; the partials' buffers hold g · decode_splits(keys) splits.
/// Splits of a decode step over a cache of `keys` keys.
std::uint64_t decode_splits(std::uint64_t keys) { return (keys + kDecodeKeysPerSplit - 1) / kDecodeKeysPerSplit; }

template <int kMaxD>
void decode_step(const float* q, const float* k, const float* v, float* out, float* partial_max, float* partial_sum,
                 float* partial_acc, std::uint64_t g, std::uint64_t keys, std::uint64_t kv_rows, std::uint64_t d) {
  const std::uint64_t splits = decode_splits(keys);
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (std::uint64_t first = 0; first < g; first += cuda::kMaxGridYZ) {  // grid y is limited to 65535
    const dim3 grid(cuda::grid_x(splits, "MSA decode step (a block a split of the cache)"),
                    static_cast<unsigned>(std::min(cuda::kMaxGridYZ, g - first)));
    decode_partials<kMaxD><<<grid, kDecodeWarps * 32>>>(
        q, k, v, partial_max, partial_sum, partial_acc, static_cast<long long>(first), static_cast<long long>(keys),
        static_cast<long long>(kv_rows), static_cast<int>(d), scale, static_cast<long long>(splits));
    cuda::check_launch("MSA decode partials");
  }
  decode_combine<kMaxD><<<cuda::grid_x(g, "MSA decode combine (a block a group)"), kDecodeWarps * 32>>>(
      partial_max, partial_sum, partial_acc, out, static_cast<long long>(splits), static_cast<int>(d));
  cuda::check_launch("MSA decode combine");
}

/// MSA's decode state on the device: the K/V cache [group][capacity][d] (capacity doubling as tokens come), one
/// query a step over it with the online-softmax kernel.
class MsaDecodeCuda final : public DecodeState {
 public:
  explicit MsaDecodeCuda(const AttentionConfig& c) : groups_(c.batch * c.heads), d_(c.head_dim) {}
  void add(const AttentionInputs& prompt) override {
    const std::uint64_t n = prompt.k.seq;
    reserve(tokens_ + n);
    const cuda::DeviceBuffer<float> k(prompt.k.data), v(prompt.v.data);
    store(k.get(), v.get(), n);
  }
  RunResult step(const AttentionInputs& token) override {
    reserve(tokens_ + 1);  // growing the cache is not a step's work
    if (d_ > kMaxHeadDim)
      throw Error("CUDA MSA decoding supports head dim ≤ " + std::to_string(kMaxHeadDim) + ", got " +
                  std::to_string(d_) + " (use --device cpu)");
    const cuda::DeviceBuffer<float> q(token.q.data), k(token.k.data), v(token.v.data);
    cuda::DeviceBuffer<float> out(groups_ * d_);
    const std::uint64_t splits = decode_splits(tokens_ + 1);
    cuda::DeviceBuffer<float> partial_max(groups_ * splits), partial_sum(groups_ * splits),
        partial_acc(groups_ * splits * d_);
    cuda::EventTimer timer;
    store(k.get(), v.get(), 1);  // the new token's key and value into the cache
    const auto run = [&](auto width) {
      decode_step<decltype(width)::value>(q.get(), k_->get(), v_->get(), out.get(), partial_max.get(),
                                          partial_sum.get(), partial_acc.get(), groups_, tokens_, capacity_, d_);
    };
    if (d_ <= 32)
      run(std::integral_constant<int, 32>{});
    else if (d_ <= 64)
      run(std::integral_constant<int, 64>{});
    else
      run(std::integral_constant<int, 128>{});
    const double ms = timer.stop_ms();
    return RunResult{Tensor{token.q.batch, token.q.heads, 1, d_, out.download()}, ms, Device::cuda};
  }
  std::uint64_t bytes() const override { return 2 * groups_ * tokens_ * d_ * sizeof(float); }
  std::map<std::string, std::vector<double>> arrays() const override {
    if (!k_) return {{"k", {}}, {"v", {}}};  // nothing cached yet
    return {{"k", compact(*k_)}, {"v", compact(*v_)}};
  }

 private:
  /// Room for `tokens` a group: a larger cache, the tokens so far moved over (device to device).
  void reserve(std::uint64_t tokens) {
    if (tokens <= capacity_) return;
    const std::uint64_t capacity = std::max(tokens, 2 * capacity_);
    auto k = std::make_unique<cuda::DeviceBuffer<float>>(groups_ * capacity * d_),
         v = std::make_unique<cuda::DeviceBuffer<float>>(groups_ * capacity * d_);
    if (tokens_ > 0) {
      copy_rows(k->get(), capacity, k_->get(), capacity_, tokens_);
      copy_rows(v->get(), capacity, v_->get(), capacity_, tokens_);
    }
    k_ = std::move(k), v_ = std::move(v), capacity_ = capacity;
  }
  /// Each group's first `rows` rows from a buffer of `from_rows` a group into one of `to_rows` a group.
  void copy_rows(float* to, std::uint64_t to_rows, const float* from, std::uint64_t from_rows,
                 std::uint64_t rows) const {
    const std::size_t row_bytes = d_ * sizeof(float);
    cuda::check(cudaMemcpy2D(to, to_rows * row_bytes, from, from_rows * row_bytes, rows * row_bytes, groups_,
                             cudaMemcpyDeviceToDevice),
                "cudaMemcpy2D (K/V cache)");
  }
  /// n new tokens a group (device, [group][n][d]) after the cached ones.
  void store(const float* k, const float* v, std::uint64_t n) {
    copy_rows(k_->get() + tokens_ * d_, capacity_, k, n, n);
    copy_rows(v_->get() + tokens_ * d_, capacity_, v, n, n);
    tokens_ += n;
  }
  /// The cached tokens' rows of each group, [group][tokens][d] (the rows beyond them were never written).
  std::vector<double> compact(const cuda::DeviceBuffer<float>& cache) const {
    std::vector<float> rows(groups_ * tokens_ * d_);
    const std::size_t row_bytes = d_ * sizeof(float);
    if (!rows.empty())
      cuda::check(cudaMemcpy2D(rows.data(), tokens_ * row_bytes, cache.get(), capacity_ * row_bytes,
                               tokens_ * row_bytes, groups_, cudaMemcpyDeviceToHost),
                  "cudaMemcpy2D (K/V cache download)");
    return {rows.begin(), rows.end()};
  }
  std::uint64_t groups_, d_, tokens_ = 0, capacity_ = 0;
  std::unique_ptr<cuda::DeviceBuffer<float>> k_, v_;
};
}  // namespace

void softmax_attention_cuda(const float* q, const float* k, const float* v, float* out, std::uint64_t g,
                            std::uint64_t n, std::uint64_t keys, std::uint64_t d, bool causal) {
  softmax_attention(q, k, v, out, g, n, keys, d, causal);
}

std::unique_ptr<DecodeState> msa_decode_state_cuda(const AttentionConfig& config) {
  return std::make_unique<MsaDecodeCuda>(config);
}

RunResult msa_fp16_cuda(const std::vector<std::uint16_t>& q_bits, const std::vector<std::uint16_t>& k_bits,
                        const std::vector<std::uint16_t>& v_bits, const AttentionConfig& c, const Reporter& report) {
  const std::uint64_t g = c.batch * c.heads, n = c.seq, d = c.head_dim;
  const cuda::DeviceBuffer<std::uint16_t> q(q_bits), k(k_bits), v(v_bits);
  cuda::DeviceBuffer<float> out(q_bits.size());
  const auto half = [](const cuda::DeviceBuffer<std::uint16_t>& b) { return reinterpret_cast<const __half*>(b.get()); };
  cuda::EventTimer timer;
  softmax_attention(half(q), half(k), half(v), out.get(), g, n, n, d, c.causal);
  const double ms = timer.stop_ms();
  report([=] { return stages::softmax_attention(c, DType::fp16); });
  return cuda_result(c, out.download(), ms);
}

RunResult msa_cuda(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters&,
                   const Reporter& report) {
  const std::uint64_t g = c.batch * c.heads, n = c.seq, d = c.head_dim;
  const cuda::DeviceBuffer<float> q(in.q.data), k(in.k.data), v(in.v.data);
  cuda::DeviceBuffer<float> out(in.q.data.size());
  cuda::EventTimer timer;
  softmax_attention_cuda(q.get(), k.get(), v.get(), out.get(), g, n, n, d, c.causal);
  const double ms = timer.stop_ms();
  report([=] { return stages::softmax_attention(c); });
  return cuda_result(c, out.download(), ms);
}

}  // namespace ecosim::ecoformer::detail
