// ActNN CUDA kernels: single-pass quantize+pack (one warp per group: min/max by warp shuffles, bf16
// metadata, stochastic rounding and packing in registers, no host synchronisation) and unpack+dequantize
// (the same lane layout: 8 elements per thread, four groups per warp with their loads issued first). The input type and the bit width are template parameters
// (the width dispatched per sample inside the kernel), 32-bit index arithmetic where it fits; loads and stores
// are 16-byte vectors where the address allows (checked per lane: sample offsets need not be aligned).
// Bit-identical to actnn_cpu.cpp: both use quant_math.hpp, compiled here with --fmad=false.

#include "compression_cuda.cuh"
#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "input_type.hpp"

namespace ecosim::kernels::actnn {

namespace {

constexpr unsigned kWarpsPerBlock = 8;     // warps per 256-thread block
constexpr unsigned kDequantizeGroups = 4;  // groups per warp of the dequantize kernel (1 for quantize)

struct DeviceLayout {
  std::uint64_t sample_elements, groups_per_sample;
  const std::uint8_t* bits;            // per sample
  const std::uint64_t* sample_offset;  // per sample, bytes
};

/// Lane `lane` of the warp for group g: its sample, its first element within the sample (8 per lane) and how
/// many of its 8 elements exist (fewer at the end of a sample, 0 past it). Its codes fill exactly b bytes
/// of the stream (8·b bits, LSB first), starting at byte i0·b/8 of the sample, and one Philox call gives
/// its 8 uniforms. The quantize and unpack kernels share this layout.
struct Lane {
  std::uint64_t s, i0;
  unsigned valid;
};
__device__ Lane lane_of(const DeviceLayout& l, std::uint64_t g, unsigned lane) {
  std::uint64_t s, first;
  if (g <= UINT32_MAX && l.groups_per_sample <= UINT32_MAX) {  // 32-bit division: a few instructions, not ~70
    const std::uint32_t g32 = static_cast<std::uint32_t>(g), per = static_cast<std::uint32_t>(l.groups_per_sample);
    const std::uint32_t s32 = g32 / per;
    s = s32;
    first = static_cast<std::uint64_t>(g32 - s32 * per) * kGroupSize;
  } else {
    s = g / l.groups_per_sample;
    first = (g % l.groups_per_sample) * kGroupSize;
  }
  const std::uint64_t count = min(kGroupSize, l.sample_elements - first), i0 = first + 8 * lane;
  const unsigned valid = count <= 8 * lane ? 0u : count - 8 * lane >= 8 ? 8u : static_cast<unsigned>(count - 8 * lane);
  return {s, i0, valid};
}

/// Calls f(std::integral_constant<unsigned, B>{}) for b = B ∈ {1, 2, 4, 8} (Layout::check allows no other): the
/// packing shifts and masks become constants. b is one sample's, so a warp never diverges here.
template <class F>
__device__ void with_bits(unsigned b, F&& f) {
  switch (b) {
    case 1: f(std::integral_constant<unsigned, 1>{}); break;
    case 2: f(std::integral_constant<unsigned, 2>{}); break;
    case 4: f(std::integral_constant<unsigned, 4>{}); break;
    default: f(std::integral_constant<unsigned, 8>{});
  }
}
/// The word holding a lane's 8 codes of B bits.
template <unsigned B>
struct Word {
  using type = std::conditional_t<(B <= 4), std::uint32_t, std::uint64_t>;
};

/// The index of the calling thread's warp in the grid (kWarpsPerBlock per block): its group in the quantize kernel.
__device__ std::uint64_t group_of_warp() {
  return static_cast<std::uint64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
}

/// One warp per group: min/max by warp shuffles, then each lane quantizes and packs its 8 elements in
/// registers (one b-byte store). Whole warps exit together, so shuffles are safe.
template <quant::Input T>
__global__ void quantize_kernel(const void* x, DeviceLayout l, std::uint64_t groups, std::uint64_t seed,
                                std::uint16_t* zero, std::uint16_t* range, std::uint8_t* codes, cuda::Flags* flags) {
  const std::uint64_t g = group_of_warp();
  if (g >= groups) return;
  const unsigned lane = threadIdx.x % 32;
  const Lane c = lane_of(l, g, lane);
  const std::uint64_t e0 = c.s * l.sample_elements + c.i0;
  float v[8];
  cuda::load8<T>(x, e0, c.valid, v);
  float lo = INFINITY, hi = -INFINITY;
#pragma unroll
  for (unsigned j = 0; j < 8; ++j)
    if (j < c.valid) {
      if (!quant::is_finite(v[j])) atomicMin(&flags->bad_element, static_cast<unsigned long long>(e0 + j));
      lo = fminf(lo, v[j]);
      hi = fmaxf(hi, v[j]);
    }
  cuda::warp_min_max(lo, hi);
  const quant::Metadata m = quant::group_metadata(lo, hi);
  if (lane == 0) {
    zero[g] = m.zero_bf16;
    range[g] = m.range_bf16;
    if (!quant::metadata_finite(m)) atomicMin(&flags->bad_group, static_cast<unsigned long long>(g));
  }
  if (c.valid == 0) return;
  with_bits(l.bits[c.s], [&](auto bits) {
    constexpr unsigned B = decltype(bits)::value;
    constexpr std::uint32_t levels = (1u << B) - 1u;
    const float z = quant::bf16_to_float(m.zero_bf16), scale = quant::quant_scale(m.range_bf16, levels);
    const quant::Uniform8 u = quant::uniforms8(seed, quant::kActnnStream, static_cast<std::uint32_t>(c.s), c.i0 / 8);
    typename Word<B>::type packed = 0;  // LSB first: element j at bits [j·B, j·B + B)
#pragma unroll
    for (unsigned j = 0; j < 8; ++j)
      if (j < c.valid) packed |= static_cast<typename Word<B>::type>(quant::quantize(v[j], z, scale, u[j], levels)) << (j * B);
    cuda::store_bytes(codes + l.sample_offset[c.s] + c.i0 * B / 8, packed, (c.valid * B + 7) / 8);
  });
}

/// The quantize kernel's layout in reverse, kDequantizeGroups groups per warp: each lane first issues the
/// loads of all its groups (its b code bytes at once, the group constants once), then converts and stores
/// them with vector stores, so several loads per lane are in flight (one group per warp left the kernel waiting
/// on dependent loads: long-scoreboard stalls, 30 % of copy bandwidth).
__global__ void dequantize_kernel(DeviceLayout l, std::uint64_t groups, const std::uint16_t* __restrict__ zero,
                                  const std::uint16_t* __restrict__ range, const std::uint8_t* __restrict__ codes,
                                  float* __restrict__ out) {
  const unsigned lane = threadIdx.x % 32;
  const std::uint64_t first = group_of_warp() * kDequantizeGroups;
  Lane c[kDequantizeGroups];
  unsigned b[kDequantizeGroups];
  std::uint64_t packed[kDequantizeGroups];
  std::uint16_t z[kDequantizeGroups], r[kDequantizeGroups];
#pragma unroll
  for (unsigned k = 0; k < kDequantizeGroups; ++k) {
    const std::uint64_t g = first + k;
    c[k] = g < groups ? lane_of(l, g, lane) : Lane{0, 0, 0};
    if (c[k].valid == 0) continue;
    b[k] = l.bits[c[k].s];
    packed[k] = cuda::load_bytes(codes + l.sample_offset[c[k].s] + c[k].i0 * b[k] / 8, (c[k].valid * b[k] + 7) / 8);
    z[k] = zero[g];
    r[k] = range[g];
  }
#pragma unroll
  for (unsigned k = 0; k < kDequantizeGroups; ++k) {
    if (c[k].valid == 0) continue;
    with_bits(b[k], [&](auto bits) {
      constexpr unsigned B = decltype(bits)::value;
      constexpr std::uint32_t levels = (1u << B) - 1u;
      const float zk = quant::bf16_to_float(z[k]), step = quant::quant_step(r[k], levels);
      const auto word = static_cast<typename Word<B>::type>(packed[k]);
      float v[8];
#pragma unroll
      for (unsigned j = 0; j < 8; ++j)
        v[j] = j < c[k].valid ? quant::dequantize(static_cast<std::uint32_t>(word >> (j * B)) & levels, zk, step) : 0.0f;
      cuda::store8<quant::Input::fp32>(out, c[k].s * l.sample_elements + c[k].i0, c[k].valid, v);
    });
  }
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

/// Blocks of a kernel that gives each warp `groups_per_warp` groups.
unsigned grid(std::uint64_t groups, unsigned groups_per_warp) {
  return cuda::blocks_for((groups + groups_per_warp - 1) / groups_per_warp, kWarpsPerBlock, "actnn");
}
unsigned quantize_grid(std::uint64_t groups) { return grid(groups, 1); }
unsigned dequantize_grid(std::uint64_t groups) { return grid(groups, kDequantizeGroups); }

// The launches take their grid (quantize_grid / dequantize_grid) from the caller, computed outside any timed
// region.
void launch_quantize(unsigned blocks, const void* x, quant::Input type, const DeviceLayout& l, std::uint64_t groups,
                     std::uint64_t seed, std::uint16_t* zero, std::uint16_t* range, std::uint8_t* codes,
                     cuda::Flags* flags) {
  cuda::with_input(type, [&](auto tag) {
    quantize_kernel<decltype(tag)::value>
        <<<blocks, 32 * kWarpsPerBlock>>>(x, l, groups, seed, zero, range, codes, flags);
  });
}

void launch_dequantize(unsigned blocks, const DeviceLayout& l, std::uint64_t groups, const std::uint16_t* zero,
                       const std::uint16_t* range, const std::uint8_t* codes, float* out) {
  dequantize_kernel<<<blocks, 32 * kWarpsPerBlock>>>(l, groups, zero, range, codes, out);
}

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
  launch_quantize(quantize_grid(groups), input.get(), input_type(x.dtype), tables.device, groups, seed, zero.get(), range.get(),
                  codes.get(), flags.get());
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
  const std::uint64_t groups = c.layout.groups();
  launch_dequantize(dequantize_grid(groups), tables.device, groups, zero.get(), range.get(), codes.get(), out.get());
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
  const quant::Input type = input_type(x.dtype);
  const unsigned quantize_blocks = quantize_grid(groups), dequantize_blocks = dequantize_grid(groups);
  CudaTiming t;
  t.input_bytes = bytes;
  t.compressed_bytes = offsets.back() + 4 * groups;
  t.output_bytes = 4 * layout.elements();
  t.quantize = cuda::time_stats(plan, [&] {
    launch_quantize(quantize_blocks, input.get(), type, tables.device, groups, 1, zero.get(), range.get(), codes.get(),
                    flags.get());
  });
  t.dequantize = cuda::time_stats(
      plan, [&] { launch_dequantize(dequantize_blocks, tables.device, groups, zero.get(), range.get(), codes.get(), out.get()); });
  t.copy = cuda::time_stats(
      plan, [&] { cuda::check(cudaMemcpyAsync(copy.get(), input.get(), bytes, cudaMemcpyDeviceToDevice), "copy"); });
  return t;
}

}  // namespace ecosim::kernels::actnn
