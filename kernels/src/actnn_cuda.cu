// ActNN CUDA kernels: single-pass quantize+pack (one warp per group: min/max by warp shuffles, bf16
// metadata, stochastic rounding and packing in registers, no host synchronisation) and unpack+dequantize.
// Bit-identical to actnn_cpu.cpp: both use quant_math.hpp, compiled here with --fmad=false.

#include "compression_cuda.cuh"
#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "input_type.hpp"

namespace ecosim::kernels::actnn {

namespace {

constexpr unsigned kWarpsPerBlock = 8;  // groups per 256-thread block of the quantize kernel

struct DeviceLayout {
  std::uint64_t sample_elements, groups_per_sample;
  const std::uint8_t* bits;            // per sample
  const std::uint64_t* sample_offset;  // per sample, bytes
};

/// One warp per group, each lane 8 consecutive elements: the lane's codes fill exactly b bytes of the stream
/// (8·b bits) and one Philox call gives its 8 uniforms. Whole warps exit together, so shuffles are safe.
__global__ void quantize_kernel(const void* x, quant::Input type, DeviceLayout l, std::uint64_t groups,
                                std::uint64_t seed, std::uint16_t* zero, std::uint16_t* range, std::uint8_t* codes,
                                cuda::Flags* flags) {
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (g >= groups) return;
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t s = g / l.groups_per_sample, first = (g % l.groups_per_sample) * kGroupSize;
  const std::uint64_t count = min(kGroupSize, l.sample_elements - first), i0 = first + 8 * lane;
  const unsigned valid = count <= 8 * lane ? 0u : count - 8 * lane >= 8 ? 8u : static_cast<unsigned>(count - 8 * lane);
  const std::uint64_t e0 = s * l.sample_elements + i0;
  float v[8];
  float lo = INFINITY, hi = -INFINITY;
#pragma unroll
  for (unsigned j = 0; j < 8; ++j) {
    v[j] = j < valid ? quant::load(x, type, e0 + j) : 0.0f;
    if (j < valid) {
      if (!quant::is_finite(v[j])) atomicMin(&flags->bad_element, static_cast<unsigned long long>(e0 + j));
      lo = fminf(lo, v[j]);
      hi = fmaxf(hi, v[j]);
    }
  }
  cuda::warp_min_max(lo, hi);
  const quant::Metadata m = quant::group_metadata(lo, hi);
  if (lane == 0) {
    zero[g] = m.zero_bf16;
    range[g] = m.range_bf16;
    if (!quant::metadata_finite(m)) atomicMin(&flags->bad_group, static_cast<unsigned long long>(g));
  }
  if (valid == 0) return;
  const unsigned b = l.bits[s];
  const std::uint32_t levels = (1u << b) - 1u;
  const float z = quant::bf16_to_float(m.zero_bf16), scale = quant::quant_scale(m.range_bf16, levels);
  const quant::Uniform8 u = quant::uniforms8(seed, quant::kActnnStream, static_cast<std::uint32_t>(s), i0 / 8);
  std::uint64_t packed = 0;  // LSB first: element j at bits [j·b, j·b + b)
#pragma unroll
  for (unsigned j = 0; j < 8; ++j)
    if (j < valid) packed |= static_cast<std::uint64_t>(quant::quantize(v[j], z, scale, u[j], levels)) << (j * b);
  std::uint8_t* out = codes + l.sample_offset[s] + i0 * b / 8;
  for (unsigned k = 0; k < (valid * b + 7) / 8; ++k) out[k] = static_cast<std::uint8_t>(packed >> (8 * k));
}

__global__ void dequantize_kernel(DeviceLayout l, const std::uint16_t* zero, const std::uint16_t* range,
                                  const std::uint8_t* codes, float* out) {
  const std::uint64_t g = blockIdx.x, s = g / l.groups_per_sample;
  const std::uint64_t first = (g % l.groups_per_sample) * kGroupSize + threadIdx.x;
  if (first >= l.sample_elements) return;
  const unsigned b = l.bits[s];
  const std::uint32_t levels = (1u << b) - 1u;
  const std::uint64_t bit = first * b;
  const std::uint32_t code = (codes[l.sample_offset[s] + bit / 8] >> (bit % 8)) & levels;
  out[s * l.sample_elements + first] =
      quant::dequantize(code, quant::bf16_to_float(zero[g]), quant::quant_step(range[g], levels));
}

std::uint64_t input_bytes(const TensorView& x) { return x.elements * (x.dtype == DType::fp32 ? 4 : 2); }

/// The layout's per-sample tables on the device.
struct LayoutBuffers {
  cuda::DeviceBuffer<std::uint8_t> bits;
  cuda::DeviceBuffer<std::uint64_t> offsets;
  DeviceLayout device;

  LayoutBuffers(const Layout& l, const std::vector<std::uint64_t>& sample_offsets)
      : bits(std::vector<std::uint8_t>(l.bits.begin(), l.bits.end())),
        offsets(sample_offsets),
        device{l.sample_elements, l.groups_per_sample(), bits.get(), offsets.get()} {}
};

unsigned quantize_grid(std::uint64_t groups) { return cuda::blocks_for(groups, kWarpsPerBlock, "actnn"); }

void check_arguments(const TensorView& x, const Layout& layout) {
  layout.check(x);
  gpu::require("actnn");
}

}  // namespace

Compressed quantize_cuda(const TensorView& x, const Layout& layout, std::uint64_t seed, OpSink* sink) {
  check_arguments(x, layout);
  Compressed c{layout, layout.sample_byte_offsets(), {}, {}, {}};
  const std::uint64_t groups = layout.groups();
  const cuda::DeviceBuffer<std::uint8_t> input(static_cast<const std::uint8_t*>(x.data), input_bytes(x));
  const LayoutBuffers tables(layout, c.sample_byte_offset);
  const cuda::DeviceBuffer<std::uint16_t> zero(groups), range(groups);
  const cuda::DeviceBuffer<std::uint8_t> codes(c.sample_byte_offset.back());
  const cuda::DeviceBuffer<cuda::Flags> flags = cuda::make_flags();
  quantize_kernel<<<quantize_grid(groups), 32 * kWarpsPerBlock>>>(
      input.get(), input_type(x.dtype), tables.device, groups, seed, zero.get(), range.get(), codes.get(), flags.get());
  cuda::synchronize("actnn quantize");
  cuda::throw_flags(flags, "actnn", actnn_range_overflow);
  c.zero_bf16 = zero.download();
  c.range_bf16 = range.download();
  c.codes = codes.download();
  if (sink) sink->record(quantize_record(layout, x.dtype));
  return c;
}

std::vector<float> dequantize_cuda(const Compressed& c, OpSink* sink) {
  c.check();
  gpu::require("actnn");
  const LayoutBuffers tables(c.layout, c.sample_byte_offset);
  const cuda::DeviceBuffer<std::uint16_t> zero(c.zero_bf16), range(c.range_bf16);
  const cuda::DeviceBuffer<std::uint8_t> codes(c.codes);
  const cuda::DeviceBuffer<float> out(c.layout.elements());
  dequantize_kernel<<<cuda::grid_x(c.layout.groups(), "actnn unpack (one block per group)"), kGroupSize>>>(
      tables.device, zero.get(), range.get(), codes.get(), out.get());
  cuda::synchronize("actnn dequantize");
  if (sink) sink->record(dequantize_record(c.layout));
  return out.download();
}

CudaTiming time_cuda(const TensorView& x, const Layout& layout, const timing::Plan& plan) {
  check_arguments(x, layout);
  check_finite(x, "actnn");
  const auto offsets = layout.sample_byte_offsets();
  const std::uint64_t groups = layout.groups(), bytes = input_bytes(x);
  const cuda::DeviceBuffer<std::uint8_t> input(static_cast<const std::uint8_t*>(x.data), bytes), copy(bytes);
  const LayoutBuffers tables(layout, offsets);
  const cuda::DeviceBuffer<std::uint16_t> zero(groups), range(groups);
  const cuda::DeviceBuffer<std::uint8_t> codes(offsets.back());
  const cuda::DeviceBuffer<float> out(layout.elements());
  const cuda::DeviceBuffer<cuda::Flags> flags = cuda::make_flags();
  const unsigned grid = quantize_grid(groups),
                 dequantize_grid = cuda::grid_x(groups, "actnn unpack (one block per group)");
  CudaTiming t;
  t.input_bytes = bytes;
  t.compressed_bytes = offsets.back() + 4 * groups;
  t.output_bytes = 4 * layout.elements();
  t.quantize = cuda::time_stats(plan, [&] {
    quantize_kernel<<<grid, 32 * kWarpsPerBlock>>>(input.get(), input_type(x.dtype), tables.device, groups, 1,
                                                   zero.get(), range.get(), codes.get(), flags.get());
  });
  t.dequantize = cuda::time_stats(plan, [&] {
    dequantize_kernel<<<dequantize_grid, kGroupSize>>>(tables.device, zero.get(), range.get(), codes.get(), out.get());
  });
  t.copy = cuda::time_stats(
      plan, [&] { cuda::check(cudaMemcpyAsync(copy.get(), input.get(), bytes, cudaMemcpyDeviceToDevice), "copy"); });
  return t;
}

}  // namespace ecosim::kernels::actnn
