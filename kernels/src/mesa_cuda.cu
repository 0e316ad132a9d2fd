// Mesa CUDA kernels: per-head min/max (block reduction, then atomics on order-preserving integer keys, so
// the result is exact and independent of scheduling), and quantization that first recomputes the running
// (α, β) on the device from the previous state — no host synchronisation between the two launches.
// The input type is a template parameter; each thread moves 8 elements at a time (16-byte vector loads /
// stores where the address allows, 8 codes in one 8-byte store), all its loads issued before any store. Bit-identical to mesa_cpu.cpp (shared
// quant_math.hpp, --fmad=false).
//
// Quantization reads the input twice (min/max, then quantize). A one-pass kernel would have to quantize
// with the scale known before the step — the previous step's (α, β) — since this step's min/max is only
// known after all of the input was read. That is a different function from the reference (which, like the
// Mesa seed, updates the running range with this step's min/max first and quantizes with the updated
// scale; on the first step there is no previous scale at all), so it would break bit-identity with
// mesa_cpu.cpp and change the saturation behaviour; it was not done.
#include "compression_cuda.cuh"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/kernels/mesa.hpp"
#include "input_type.hpp"
#include "mesa_step.hpp"

namespace ecosim::kernels::mesa {

namespace {

constexpr unsigned kThreads = 256;
constexpr std::uint64_t kChunk = 16 * kThreads;  // elements of one head segment per block

/// Monotone map float → uint32 (for atomicMin/atomicMax on floats); −0 is canonicalised to +0 first.
__device__ std::uint32_t order_key(float f) {
  const std::uint32_t u = quant::float_bits(quant::add_rn(f, 0.0f));
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ float key_value(std::uint32_t k) { return quant::bits_float((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k); }

struct Segments {
  std::uint64_t heads, inner, chunks;  // a block covers chunk (blockIdx % chunks) of segment (blockIdx / chunks)
};

/// Elements [i, i + valid) of a chunk ending at `end`: 8, or fewer at the end of the chunk.
__device__ unsigned valid_of(std::uint64_t i, std::uint64_t end) {
  return end - i >= 8 ? 8u : static_cast<unsigned>(end - i);
}

// In every kernel a thread takes 8 consecutive elements of a head segment at a time, the 8 elements of one
// Philox call: step k of thread t covers i = start + 8·(t + k·kThreads), k < kSteps. Each kernel first issues
// the loads of all its steps, then computes and stores (several loads per thread in flight).
constexpr unsigned kSteps = kChunk / (8 * kThreads);
static_assert(kChunk % (8 * kThreads) == 0, "a chunk is whole steps");

/// The first element of step k of the calling thread in the chunk starting at `start`.
__device__ std::uint64_t step_first(std::uint64_t start, unsigned k) { return start + 8 * (threadIdx.x + k * kThreads); }

/// The calling thread's steps of the chunk [start, end) of the head segment at `base`: valid[k] elements (8, fewer
/// at the chunk's end, 0 past it) loaded into v[k], every load issued before any is used.
template <quant::Input T>
__device__ __forceinline__ void load_steps(const void* __restrict__ x, std::uint64_t base, std::uint64_t start,
                                           std::uint64_t end, float (&v)[kSteps][8], unsigned (&valid)[kSteps]) {
#pragma unroll
  for (unsigned k = 0; k < kSteps; ++k) {
    const std::uint64_t i = step_first(start, k);
    valid[k] = i < end ? valid_of(i, end) : 0u;
    cuda::load8<T>(x, base + i, valid[k], v[k]);
  }
}

template <quant::Input T>
__global__ void min_max_kernel(const void* __restrict__ x, Segments s, std::uint32_t* lo_key, std::uint32_t* hi_key,
                               cuda::Flags* flags) {
  const std::uint64_t segment = blockIdx.x / s.chunks, start = (blockIdx.x % s.chunks) * kChunk;
  const std::uint64_t end = min(start + kChunk, s.inner), base = segment * s.inner;
  float v[kSteps][8];
  unsigned valid[kSteps];
  load_steps<T>(x, base, start, end, v, valid);
  float lo = INFINITY, hi = -INFINITY;
#pragma unroll
  for (unsigned k = 0; k < kSteps; ++k)
#pragma unroll
    for (unsigned j = 0; j < 8; ++j)
      if (j < valid[k]) {
        if (!quant::is_finite(v[k][j]))
          atomicMin(&flags->bad_element, static_cast<unsigned long long>(base + step_first(start, k) + j));
        lo = fminf(lo, v[k][j]);
        hi = fmaxf(hi, v[k][j]);
      }
  cuda::block_min_max(lo, hi);
  if (threadIdx.x == 0) {
    const std::uint64_t h = segment % s.heads;
    atomicMin(&lo_key[h], order_key(lo));
    atomicMax(&hi_key[h], order_key(hi));
  }
}

template <quant::Input T>
__global__ void quantize_kernel(const void* __restrict__ x, Segments s, bool first, const float* old_alpha,
                                const float* old_beta, const std::uint32_t* lo_key, const std::uint32_t* hi_key,
                                std::uint64_t seed, float* alpha, float* beta, std::uint8_t* __restrict__ codes,
                                cuda::Flags* flags) {
  const std::uint64_t segment = blockIdx.x / s.chunks, chunk = blockIdx.x % s.chunks, h = segment % s.heads;
  const quant::MesaScale old = first ? quant::MesaScale{0.0f, 0.0f} : quant::MesaScale{old_alpha[h], old_beta[h]};
  const quant::MesaScale m = quant::mesa_update(first, old, key_value(lo_key[h]), key_value(hi_key[h]), kMomentum);
  if (chunk == 0 && segment == h && threadIdx.x == 0) {  // the first segment of head h publishes its scale
    alpha[h] = m.alpha;
    beta[h] = m.beta;
    if (!quant::mesa_finite(m)) atomicMin(&flags->bad_group, static_cast<unsigned long long>(h));
  }
  const float scale = quant::mesa_scale(m.alpha);
  const std::uint64_t start = chunk * kChunk, end = min(start + kChunk, s.inner), base = segment * s.inner;
  float v[kSteps][8];
  unsigned valid[kSteps];
  load_steps<T>(x, base, start, end, v, valid);
#pragma unroll
  for (unsigned k = 0; k < kSteps; ++k) {
    if (valid[k] == 0) continue;
    const std::uint64_t i = step_first(start, k);
    const quant::Uniform8 u = quant::uniforms8(seed, quant::kMesaStream, static_cast<std::uint32_t>(segment), i / 8);
    std::uint64_t packed = 0;  // code j in byte j
#pragma unroll
    for (unsigned j = 0; j < 8; ++j)
      if (j < valid[k])
        packed |= static_cast<std::uint64_t>(quant::quantize(v[k][j], m.beta, scale, u[j], 255)) << (8 * j);
    cuda::store_bytes(codes + base + i, packed, valid[k]);
  }
}

__global__ void dequantize_kernel(const std::uint8_t* __restrict__ codes, Segments s, const float* alpha,
                                  const float* beta, float* __restrict__ out) {
  const std::uint64_t segment = blockIdx.x / s.chunks, start = (blockIdx.x % s.chunks) * kChunk;
  const std::uint64_t end = min(start + kChunk, s.inner), base = segment * s.inner, h = segment % s.heads;
  std::uint64_t packed[kSteps];
  unsigned valid[kSteps];
#pragma unroll
  for (unsigned k = 0; k < kSteps; ++k) {
    const std::uint64_t i = step_first(start, k);
    valid[k] = i < end ? valid_of(i, end) : 0u;
    packed[k] = valid[k] ? cuda::load_bytes(codes + base + i, valid[k]) : 0;
  }
  const float zero = beta[h], step = quant::mesa_step(alpha[h]);
#pragma unroll
  for (unsigned k = 0; k < kSteps; ++k) {
    float v[8];
#pragma unroll
    for (unsigned j = 0; j < 8; ++j)
      v[j] = j < valid[k] ? quant::dequantize(static_cast<std::uint32_t>(packed[k] >> (8 * j)) & 0xffu, zero, step)
                          : 0.0f;
    cuda::store8<quant::Input::fp32>(out, base + step_first(start, k), valid[k], v);
  }
}

std::uint64_t input_bytes(const TensorView& x) { return x.elements * (x.dtype == DType::fp32 ? 4 : 2); }
Segments segments(const Layout& l) { return {l.heads, l.inner, (l.inner + kChunk - 1) / kChunk}; }

/// Blocks of every kernel: one per kChunk-element chunk of each head segment.
unsigned grid(const Layout& l) {
  return cuda::grid_x(l.outer * l.heads * segments(l).chunks,
                      "mesa (one block per " + std::to_string(kChunk) + "-element chunk of each head segment)");
}

/// `blocks` = grid(l), computed by the caller outside any timed region.
void launch_dequantize(unsigned blocks, const Layout& l, const std::uint8_t* codes, const float* alpha,
                       const float* beta, float* out) {
  dequantize_kernel<<<blocks, kThreads>>>(codes, segments(l), alpha, beta, out);
}

/// Device state of one quantization: input, previous scales, min/max keys and outputs.
struct Launch {
  const Layout& layout;
  bool first;
  cuda::DeviceBuffer<std::uint8_t> input;
  cuda::DeviceBuffer<float> old_alpha, old_beta, alpha, beta;
  cuda::DeviceBuffer<std::uint32_t> lo_key, hi_key;
  cuda::DeviceBuffer<std::uint8_t> codes;
  cuda::DeviceBuffer<cuda::Flags> flags = cuda::make_flags();
  unsigned blocks;

  Launch(const TensorView& x, const Layout& l, const State& state)
      : layout(l),
        first(!state.initialized()),
        input(static_cast<const std::uint8_t*>(x.data), input_bytes(x)),
        old_alpha(state.alpha),
        old_beta(state.beta),
        alpha(l.heads),
        beta(l.heads),
        lo_key(std::vector<std::uint32_t>(l.heads, ~0u)),
        hi_key(std::vector<std::uint32_t>(l.heads, 0u)),
        codes(x.elements),
        blocks(grid(l)) {}

  void run(quant::Input type, std::uint64_t seed) {
    const Segments s = segments(layout);
    cuda::with_input(type, [&](auto tag) {
      constexpr quant::Input T = decltype(tag)::value;
      min_max_kernel<T><<<blocks, kThreads>>>(input.get(), s, lo_key.get(), hi_key.get(), flags.get());
      quantize_kernel<T><<<blocks, kThreads>>>(input.get(), s, first, old_alpha.get(), old_beta.get(), lo_key.get(),
                                               hi_key.get(), seed, alpha.get(), beta.get(), codes.get(), flags.get());
    });
  }
};

void check_arguments(const TensorView& x, const Layout& layout, const State& state) {
  layout.check(x, state);
  gpu::require("mesa");
}

}  // namespace

Compressed quantize_cuda(const TensorView& x, const Layout& layout, State& state, std::uint64_t seed, OpSink* sink) {
  check_arguments(x, layout, state);
  Launch launch(x, layout, state);
  launch.run(input_type(x.dtype), seed);
  cuda::synchronize("mesa quantize");
  cuda::throw_flags(launch.flags, "mesa", mesa_range_overflow);
  return finish_step(Compressed{layout, launch.alpha.download(), launch.beta.download(), launch.codes.download()},
                     state, x.dtype, sink);
}

std::vector<float> dequantize_cuda(const Compressed& c, OpSink* sink) {
  c.check();
  gpu::require("mesa");
  const cuda::DeviceBuffer<std::uint8_t> codes(c.codes);
  const cuda::DeviceBuffer<float> alpha(c.alpha), beta(c.beta), out(c.layout.elements());
  launch_dequantize(grid(c.layout), c.layout, codes.get(), alpha.get(), beta.get(), out.get());
  cuda::synchronize("mesa dequantize");
  if (sink) sink->record(dequantize_record(c.layout));
  return out.download();
}

CudaTiming time_cuda(const TensorView& x, const Layout& layout, const timing::Plan& plan) {
  const State fresh;
  check_arguments(x, layout, fresh);
  check_finite(x, "mesa");
  Launch launch(x, layout, fresh);
  const quant::Input type = input_type(x.dtype);
  const std::uint64_t n = layout.elements(), bytes = input_bytes(x);
  const cuda::DeviceBuffer<float> out(n);
  const cuda::DeviceBuffer<std::uint8_t> copy(bytes);
  CudaTiming t;
  t.input_bytes = bytes;
  t.compressed_bytes = n + 8 * layout.heads;
  t.output_bytes = 4 * n;
  t.quantize = cuda::time_stats(plan, [&] { launch.run(type, 1); });
  t.dequantize = cuda::time_stats(plan, [&] {
    launch_dequantize(launch.blocks, layout, launch.codes.get(), launch.alpha.get(), launch.beta.get(), out.get());
  });
  t.copy = cuda::time_stats(plan, [&] {
    cuda::check(cudaMemcpyAsync(copy.get(), launch.input.get(), bytes, cudaMemcpyDeviceToDevice), "copy");
  });
  return t;
}

}  // namespace ecosim::kernels::mesa
