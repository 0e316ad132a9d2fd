// Few-Bit Backward CUDA kernels: one thread per group of 8 elements (whose codes fill exactly `bits`
// bytes, so no two threads touch the same byte), single pass, computing per element what the CPU
// reference's per-group code does (fewbit_element.hpp), with the input type a template parameter and the
// group's elements moved by 16-byte vectors where aligned. Non-finite inputs raise a flag (lowest element
// index) read after the launch.
#include <span>
#include <string>

#include "compression_cuda.cuh"
#include "ecosim/kernels/gpu.hpp"
#include "fewbit_element.hpp"
#include "input_type.hpp"

namespace ecosim::kernels::fewbit {

namespace {

constexpr unsigned kThreads = 256;

// The kernels below are forward_group / backward_group of fewbit_element.hpp with the input type a template
// parameter and the group's 8 elements moved with load8 / store8 (same conversions, same per-element math).

template <quant::Input T>
__global__ void forward_kernel(detail::Table t, const void* x, std::uint64_t n, void* y, std::uint8_t* codes,
                               cuda::Flags* flags) {
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= detail::group_count(n)) return;
  const std::uint64_t first = g * detail::kGroupElements;
  const unsigned size = detail::group_size(g, n);
  float v[8];
  cuda::load8<T>(x, first, size, v);
  float out[8];
  std::uint32_t word = 0;  // 8 codes of ≤ 4 bits
#pragma unroll
  for (unsigned e = 0; e < 8; ++e) {
    out[e] = 0.0f;  // past `size`: not stored
    if (e < size) {
      if (!quant::is_finite(v[e])) {  // the group's outputs and codes are not written: the caller throws
        atomicMin(&flags->bad_element, static_cast<unsigned long long>(first + e));
        return;
      }
      out[e] = detail::forward_value(t, v[e]);
      word |= detail::code_of(t, v[e]) << (e * t.bits);
    }
  }
  cuda::store8<T>(y, first, size, out);
  cuda::store_bytes(codes + g * t.bits, word, detail::group_code_bytes(t, size));
}

// The levels are read from shared memory: indexed by each lane's own code, the kernel parameter (constant
// bank) serialised the lanes of a warp that read different levels (up to 16 ways at 4 bits).
template <quant::Input T>
__global__ void backward_kernel(detail::Table t, const std::uint8_t* __restrict__ codes, const void* __restrict__ grad,
                                std::uint64_t n, void* __restrict__ grad_in) {
  __shared__ float levels[detail::kMaxIntervals];
  if (threadIdx.x < detail::kMaxIntervals) levels[threadIdx.x] = t.levels[threadIdx.x];
  __syncthreads();
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= detail::group_count(n)) return;
  const std::uint64_t first = g * detail::kGroupElements;
  const unsigned size = detail::group_size(g, n);
  const std::uint64_t word = cuda::load_bytes(codes + g * t.bits, detail::group_code_bytes(t, size));
  const std::uint32_t mask = (1u << t.bits) - 1u;
  float v[8];
  cuda::load8<T>(grad, first, size, v);
#pragma unroll
  for (unsigned e = 0; e < 8; ++e)
    v[e] = e < size ? quant::mul_rn(v[e], levels[static_cast<std::uint32_t>(word >> (e * t.bits)) & mask]) : 0.0f;
  cuda::store8<T>(grad_in, first, size, v);
}

unsigned blocks(std::uint64_t n) { return cuda::blocks_for(detail::group_count(n), kThreads, "fewbit"); }

// The launches take their grid (`grid` = blocks(n)) from the caller, computed outside any timed region.
void launch_forward(unsigned grid, const detail::Table& t, const void* x, quant::Input type, std::uint64_t n, void* y,
                    std::uint8_t* codes, cuda::Flags* flags) {
  cuda::with_input(
      type, [&](auto tag) { forward_kernel<decltype(tag)::value><<<grid, kThreads>>>(t, x, n, y, codes, flags); });
}

void launch_backward(unsigned grid, const detail::Table& t, const std::uint8_t* codes, const void* grad,
                     quant::Input type, std::uint64_t n, void* grad_in) {
  cuda::with_input(
      type, [&](auto tag) { backward_kernel<decltype(tag)::value><<<grid, kThreads>>>(t, codes, grad, n, grad_in); });
}

}  // namespace

Forward forward_cuda(const Codebook& c, const TensorView& x, OpSink* sink) {
  check_input(x, "fewbit");
  gpu::require("fewbit");
  const detail::Table table = detail::make_table(c);
  Forward out{HostTensor(x.dtype, x.elements), std::vector<std::uint8_t>(code_bytes(x.elements, c.bits))};
  const cuda::DeviceBuffer<std::uint8_t> input(static_cast<const std::uint8_t*>(x.data), out.output.bytes.size());
  const cuda::DeviceBuffer<std::uint8_t> output(out.output.bytes.size()), codes(out.codes.size());
  const cuda::DeviceBuffer<cuda::Flags> flags = cuda::make_flags();
  launch_forward(blocks(x.elements), table, input.get(), input_type(x.dtype), x.elements, output.get(), codes.get(),
                 flags.get());
  cuda::synchronize("fewbit forward");
  cuda::throw_flags(flags, "fewbit");
  out.output.bytes = output.download();
  out.codes = codes.download();
  if (sink) sink->record(forward_record(c, x.elements, x.dtype));
  return out;
}

HostTensor backward_cuda(const Codebook& c, std::span<const std::uint8_t> codes, const TensorView& grad, OpSink* sink) {
  check_input(grad, "fewbit");
  gpu::require("fewbit");
  const detail::Table table = detail::make_table(c);
  if (codes.size() != code_bytes(grad.elements, c.bits))
    throw Error("fewbit: " + std::to_string(codes.size()) + " code bytes do not match " +
                std::to_string(grad.elements) + " gradient elements at " + std::to_string(c.bits) + " bits");
  HostTensor out(grad.dtype, grad.elements);
  const cuda::DeviceBuffer<std::uint8_t> device_codes(codes.data(), codes.size());
  const cuda::DeviceBuffer<std::uint8_t> input(static_cast<const std::uint8_t*>(grad.data), out.bytes.size());
  const cuda::DeviceBuffer<std::uint8_t> output(out.bytes.size());
  launch_backward(blocks(grad.elements), table, device_codes.get(), input.get(), input_type(grad.dtype), grad.elements,
                  output.get());
  cuda::synchronize("fewbit backward");
  out.bytes = output.download();
  if (sink) sink->record(backward_record(c, grad.elements, grad.dtype));
  return out;
}

CudaTiming time_cuda(const Codebook& c, const TensorView& x, const timing::Plan& plan) {
  check_input(x, "fewbit");
  check_finite(x, "fewbit");
  gpu::require("fewbit");
  const detail::Table table = detail::make_table(c);
  const std::uint64_t bytes = HostTensor(x.dtype, x.elements).bytes.size();
  const cuda::DeviceBuffer<std::uint8_t> input(static_cast<const std::uint8_t*>(x.data), bytes), output(bytes),
      copy(bytes), codes(code_bytes(x.elements, c.bits));
  const cuda::DeviceBuffer<cuda::Flags> flags = cuda::make_flags();
  const quant::Input type = input_type(x.dtype);
  const unsigned grid = blocks(x.elements);
  CudaTiming t;
  t.input_bytes = bytes;
  t.compressed_bytes = code_bytes(x.elements, c.bits);
  t.output_bytes = bytes;
  t.quantize = cuda::time_stats(plan, [&] {
    launch_forward(grid, table, input.get(), type, x.elements, output.get(), codes.get(), flags.get());
  });
  t.dequantize = cuda::time_stats(
      plan, [&] { launch_backward(grid, table, codes.get(), input.get(), type, x.elements, output.get()); });
  t.copy = cuda::time_stats(
      plan, [&] { cuda::check(cudaMemcpyAsync(copy.get(), input.get(), bytes, cudaMemcpyDeviceToDevice), "copy"); });
  return t;
}

}  // namespace ecosim::kernels::fewbit
