// Mesa CUDA kernels: per-head min/max (block reduction, then atomics on order-preserving integer keys, so
// the result is exact and independent of scheduling), and quantization that first recomputes the running
// (α, β) on the device from the previous state — no host synchronisation between the two launches.
// Bit-identical to mesa_cpu.cpp (shared quant_math.hpp, --fmad=false).
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

__global__ void min_max_kernel(const void* x, quant::Input type, Segments s, std::uint32_t* lo_key,
                               std::uint32_t* hi_key, cuda::Flags* flags) {
  const std::uint64_t segment = blockIdx.x / s.chunks, start = (blockIdx.x % s.chunks) * kChunk;
  const std::uint64_t end = min(start + kChunk, s.inner), base = segment * s.inner;
  float lo = INFINITY, hi = -INFINITY;
  for (std::uint64_t i = start + threadIdx.x; i < end; i += kThreads) {
    const float v = quant::load(x, type, base + i);
    if (!quant::is_finite(v)) atomicMin(&flags->bad_element, static_cast<unsigned long long>(base + i));
    lo = fminf(lo, v);
    hi = fmaxf(hi, v);
  }
  cuda::block_min_max(lo, hi);
  if (threadIdx.x == 0) {
    const std::uint64_t h = segment % s.heads;
    atomicMin(&lo_key[h], order_key(lo));
    atomicMax(&hi_key[h], order_key(hi));
  }
}

__global__ void quantize_kernel(const void* x, quant::Input type, Segments s, bool first, const float* old_alpha,
                                const float* old_beta, const std::uint32_t* lo_key, const std::uint32_t* hi_key,
                                std::uint64_t seed, float* alpha, float* beta, std::uint8_t* codes,
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
  for (std::uint64_t i = start + 8 * threadIdx.x; i < end; i += 8 * kThreads) {  // 8 elements per Philox call
    const quant::Uniform8 u = quant::uniforms8(seed, quant::kMesaStream, static_cast<std::uint32_t>(segment), i / 8);
    for (unsigned j = 0; j < 8 && i + j < end; ++j)
      codes[base + i + j] =
          static_cast<std::uint8_t>(quant::quantize(quant::load(x, type, base + i + j), m.beta, scale, u[j], 255));
  }
}

__global__ void dequantize_kernel(const std::uint8_t* codes, Segments s, std::uint64_t elements, const float* alpha,
                                  const float* beta, float* out) {
  const std::uint64_t e = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (e >= elements) return;
  const std::uint64_t h = (e / s.inner) % s.heads;
  out[e] = quant::dequantize(codes[e], beta[h], quant::mesa_step(alpha[h]));
}

std::uint64_t input_bytes(const TensorView& x) { return x.elements * (x.dtype == DType::fp32 ? 4 : 2); }
Segments segments(const Layout& l) { return {l.heads, l.inner, (l.inner + kChunk - 1) / kChunk}; }

/// Device state of one quantization: input, previous scales, min/max keys and outputs.
struct Launch {
  const Layout& layout;
  bool first;
  cuda::DeviceBuffer<std::uint8_t> input;
  cuda::DeviceBuffer<float> old_alpha, old_beta, alpha, beta;
  cuda::DeviceBuffer<std::uint32_t> lo_key, hi_key;
  cuda::DeviceBuffer<std::uint8_t> codes;
  cuda::DeviceBuffer<cuda::Flags> flags = cuda::make_flags();
  unsigned grid;

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
        grid(cuda::grid_x(l.outer * l.heads * segments(l).chunks,
                          "mesa (one block per " + std::to_string(kChunk) + "-element chunk of each head segment)")) {}

  void run(quant::Input type, std::uint64_t seed) {
    const Segments s = segments(layout);
    min_max_kernel<<<grid, kThreads>>>(input.get(), type, s, lo_key.get(), hi_key.get(), flags.get());
    quantize_kernel<<<grid, kThreads>>>(input.get(), type, s, first, old_alpha.get(), old_beta.get(), lo_key.get(),
                                        hi_key.get(), seed, alpha.get(), beta.get(), codes.get(), flags.get());
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
  const std::uint64_t n = c.layout.elements();
  const cuda::DeviceBuffer<std::uint8_t> codes(c.codes);
  const cuda::DeviceBuffer<float> alpha(c.alpha), beta(c.beta), out(n);
  dequantize_kernel<<<cuda::blocks_for(n, kThreads, "mesa"), kThreads>>>(codes.get(), segments(c.layout), n,
                                                                         alpha.get(), beta.get(), out.get());
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
  const unsigned dequant_grid = cuda::blocks_for(n, kThreads, "mesa");
  CudaTiming t;
  t.input_bytes = bytes;
  t.compressed_bytes = n + 8 * layout.heads;
  t.output_bytes = 4 * n;
  t.quantize = cuda::time_stats(plan, [&] { launch.run(type, 1); });
  t.dequantize = cuda::time_stats(plan, [&] {
    dequantize_kernel<<<dequant_grid, kThreads>>>(launch.codes.get(), segments(layout), n, launch.alpha.get(),
                                                  launch.beta.get(), out.get());
  });
  t.copy = cuda::time_stats(plan, [&] {
    cuda::check(cudaMemcpyAsync(copy.get(), launch.input.get(), bytes, cudaMemcpyDeviceToDevice), "copy");
  });
  return t;
}

}  // namespace ecosim::kernels::mesa
