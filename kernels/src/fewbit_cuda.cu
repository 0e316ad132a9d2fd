// Few-Bit Backward CUDA kernels: one thread per group of 8 elements (whose codes fill exactly `bits`
// bytes, so no two threads touch the same byte), single pass, running the same per-group code as the CPU
// reference (fewbit_element.hpp). Non-finite inputs raise a flag (lowest element index) read after the launch.
#include <span>
#include <string>

#include "compression_cuda.cuh"
#include "ecosim/kernels/gpu.hpp"
#include "fewbit_element.hpp"
#include "input_type.hpp"

namespace ecosim::kernels::fewbit {

namespace {

constexpr unsigned kThreads = 256;

__global__ void forward_kernel(detail::Table t, const void* x, quant::Input type, std::uint64_t n, void* y,
                               std::uint8_t* codes, cuda::Flags* flags) {
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= detail::group_count(n)) return;
  const std::uint64_t bad = detail::forward_group(t, x, type, n, g, y, codes);
  if (bad != n) atomicMin(&flags->bad_element, static_cast<unsigned long long>(bad));
}

__global__ void backward_kernel(detail::Table t, const std::uint8_t* codes, const void* grad, quant::Input type,
                                std::uint64_t n, void* grad_in) {
  const std::uint64_t g = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g < detail::group_count(n)) detail::backward_group(t, codes, grad, type, n, g, grad_in);
}

unsigned blocks(std::uint64_t n) { return cuda::blocks_for(detail::group_count(n), kThreads, "fewbit"); }

}  // namespace

Forward forward_cuda(const Codebook& c, const TensorView& x, OpSink* sink) {
  check_input(x, "fewbit");
  gpu::require("fewbit");
  const detail::Table table = detail::make_table(c);
  Forward out{HostTensor(x.dtype, x.elements), std::vector<std::uint8_t>(code_bytes(x.elements, c.bits))};
  const cuda::DeviceBuffer<std::uint8_t> input(static_cast<const std::uint8_t*>(x.data), out.output.bytes.size());
  const cuda::DeviceBuffer<std::uint8_t> output(out.output.bytes.size()), codes(out.codes.size());
  const cuda::DeviceBuffer<cuda::Flags> flags = cuda::make_flags();
  forward_kernel<<<blocks(x.elements), kThreads>>>(table, input.get(), input_type(x.dtype), x.elements, output.get(),
                                                   codes.get(), flags.get());
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
  backward_kernel<<<blocks(grad.elements), kThreads>>>(table, device_codes.get(), input.get(), input_type(grad.dtype),
                                                       grad.elements, output.get());
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
  CudaTiming t;
  t.input_bytes = bytes;
  t.compressed_bytes = code_bytes(x.elements, c.bits);
  t.output_bytes = bytes;
  t.quantize = cuda::time_stats(plan, [&] {
    forward_kernel<<<blocks(x.elements), kThreads>>>(table, input.get(), type, x.elements, output.get(), codes.get(),
                                                     flags.get());
  });
  t.dequantize = cuda::time_stats(plan, [&] {
    backward_kernel<<<blocks(x.elements), kThreads>>>(table, codes.get(), input.get(), type, x.elements, output.get());
  });
  t.copy = cuda::time_stats(
      plan, [&] { cuda::check(cudaMemcpyAsync(copy.get(), input.get(), bytes, cudaMemcpyDeviceToDevice), "copy"); });
  return t;
}

}  // namespace ecosim::kernels::fewbit
