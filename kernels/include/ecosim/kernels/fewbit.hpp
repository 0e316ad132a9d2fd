// Few-Bit Backward kernels (DESIGN §6): the forward pass writes f(x) and a b-bit interval code per element;
// the backward pass multiplies the incoming gradient by the level of the stored code.
//
// Layout of the codes: a bit stream, element e's code at bits [e·b, e·b + b) counted LSB-first within
// bytes, so every 8 elements take exactly b bytes (a 3-bit code may straddle a byte); ⌈n·b/8⌉ bytes in
// all, the unused high bits of the last byte zero. Code c means borders[c−1] ≤ v < borders[c] (v = x, or
// |x| for even derivatives), i.e. c = the number of borders ≤ v, compared in fp32.
// Inputs are fp32, fp16 or bf16 (converted to fp32 on load); f(x) and the gradient are written in the
// input's dtype (round to nearest even). f(x) is evaluated in double and rounded: the CUDA math library
// and the host libm may differ in the last place, so CPU and GPU outputs of f agree to 1 fp32 ulp (before
// any fp16/bf16 rounding), while the codes and the backward gradients are bit-identical.
// Non-finite inputs (NaN, ±Inf) and empty tensors throw ecosim::Error naming the first bad element.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "ecosim/kernels/cuda_timing.hpp"
#include "ecosim/kernels/fewbit_solver.hpp"
#include "ecosim/kernels/tensor_view.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::kernels::fewbit {

/// The kernels' copy of a Quantizer: borders and levels rounded to fp32.
struct Codebook {
  Activation activation = Activation::gelu;
  unsigned bits = 1;
  bool absolute = false;  // codes quantise |x| (even derivative)
  std::vector<float> borders, levels;

  static Codebook from(const Quantizer& q);
  /// The code of one value (the kernels' rule, for tests and references).
  std::uint32_t code(float x) const;
};

/// An owning host tensor in fp32, fp16 or bf16 (raw element bits).
struct HostTensor {
  DType dtype = DType::fp32;
  std::uint64_t elements = 0;
  std::vector<std::uint8_t> bytes;

  HostTensor(DType t, std::uint64_t n);
  TensorView view() const { return {bytes.data(), dtype, elements}; }
  float at(std::uint64_t i) const;  // element i converted to fp32
};

struct Forward {
  HostTensor output;                // f(x), dtype of x
  std::vector<std::uint8_t> codes;  // code_bytes(n, bits) bytes
};

/// ⌈elements·bits/8⌉.
std::uint64_t code_bytes(std::uint64_t elements, unsigned bits);
/// Packs/unpacks one code (< 2^bits) per element in the layout above; bits ∈ 1..4.
std::vector<std::uint8_t> pack_codes(std::span<const std::uint8_t> codes, unsigned bits);
std::vector<std::uint8_t> unpack_codes(std::span<const std::uint8_t> packed, std::uint64_t elements, unsigned bits);

/// CPU references; `sink` (optional) receives the op record of the pass.
Forward forward_cpu(const Codebook& c, const TensorView& x, OpSink* sink = nullptr);
HostTensor backward_cpu(const Codebook& c, std::span<const std::uint8_t> codes, const TensorView& grad,
                        OpSink* sink = nullptr);

/// CUDA kernels (one thread per 8 elements, single pass) behind host-memory entry points; codes and
/// gradients bit-identical to the CPU references. Throw ecosim::Error when built without CUDA or no GPU.
Forward forward_cuda(const Codebook& c, const TensorView& x, OpSink* sink = nullptr);
HostTensor backward_cuda(const Codebook& c, std::span<const std::uint8_t> codes, const TensorView& grad,
                         OpSink* sink = nullptr);
/// Device-resident timings for the benchmark: quantize = forward (f(x) + codes), dequantize =
/// backward (x reused as the incoming gradient), copy = device-to-device copy of x's bytes;
/// compressed_bytes = the codes, output_bytes = the gradient written by the backward pass.
CudaTiming time_cuda(const Codebook& c, const TensorView& x, const timing::Plan& plan);

/// Op records: forward reads x, writes f(x) and the packed codes; backward reads the codes and the
/// gradient and writes the gradient. The uncompressed baseline backward reads the saved input x instead
/// of codes and evaluates f′(x) (counted with the forward op mix).
OpRecord forward_record(const Codebook& c, std::uint64_t elements, DType t);
OpRecord backward_record(const Codebook& c, std::uint64_t elements, DType t);
OpRecord backward_uncompressed_record(Activation a, std::uint64_t elements, DType t);

}  // namespace ecosim::kernels::fewbit
