// Internal: the per-group work of the Few-Bit Backward kernels, written once for host and device so the
// CPU reference (fewbit_cpu.cpp) and the CUDA kernels (fewbit_cuda.cu) run the same code: one group is 8
// consecutive elements, whose codes fill exactly `bits` bytes of the packed stream.
#pragma once
#include <cmath>
#include <cstdint>

#include "ecosim/kernels/fewbit.hpp"
#include "fewbit_functions.hpp"
#include "quant_math.hpp"

namespace ecosim::kernels::fewbit::detail {

inline constexpr unsigned kGroupElements = 8;
inline constexpr unsigned kMaxIntervals = 16;

/// A codebook by value (a kernel argument): borders[0..intervals−2], levels[0..intervals−1].
struct Table {
  float borders[kMaxIntervals - 1];
  float levels[kMaxIntervals];
  unsigned bits;
  bool absolute;
  Activation activation;
};
/// Checks a Codebook (bits 1..4, 2^bits − 1 borders, 2^bits levels) and copies it into a Table.
Table make_table(const Codebook& c);

/// Number of borders ≤ v: the interval code.
ECOSIM_HD std::uint32_t code_of(const Table& t, float x) {
  const float v = t.absolute ? fabsf(x) : x;
  const unsigned count = (1u << t.bits) - 1u;
  std::uint32_t code = 0;
  for (unsigned k = 0; k < count; ++k) code += t.borders[k] <= v ? 1u : 0u;
  return code;
}

/// The forward output f(v) before conversion to the input type (f is evaluated in FP64).
ECOSIM_HD float forward_value(const Table& t, float v) {
  return static_cast<float>(value(t.activation, static_cast<double>(v)));
}

/// Bytes holding the codes of a group of `size` elements (they start at byte g · bits of the stream).
ECOSIM_HD unsigned group_code_bytes(const Table& t, unsigned size) { return (size * t.bits + 7u) / 8u; }

/// Groups of 8 elements covering n elements.
ECOSIM_HD std::uint64_t group_count(std::uint64_t n) { return n / kGroupElements + (n % kGroupElements != 0); }

/// Elements of group g (8, or fewer for the last group).
ECOSIM_HD unsigned group_size(std::uint64_t g, std::uint64_t n) {
  const std::uint64_t left = n - g * kGroupElements;
  return left < kGroupElements ? static_cast<unsigned>(left) : kGroupElements;
}

/// Forward of group g: f(x) into y and the group's codes into its bytes of `codes`. Returns n, or the index
/// of the group's first non-finite element (then the group's codes are not written: the caller throws).
ECOSIM_HD std::uint64_t forward_group(const Table& t, const void* x, quant::Input type, std::uint64_t n,
                                      std::uint64_t g, void* y, std::uint8_t* codes) {
  const std::uint64_t first = g * kGroupElements;
  const unsigned size = group_size(g, n);
  std::uint32_t word = 0;  // 8 codes of ≤ 4 bits
  for (unsigned e = 0; e < size; ++e) {
    const float v = quant::load(x, type, first + e);
    if (!quant::is_finite(v)) return first + e;
    quant::store(y, type, first + e, forward_value(t, v));
    word |= code_of(t, v) << (e * t.bits);
  }
  const unsigned bytes = group_code_bytes(t, size);
  for (unsigned k = 0; k < bytes; ++k) codes[g * t.bits + k] = static_cast<std::uint8_t>(word >> (8u * k));
  return n;
}

/// Backward of group g: grad_in = grad_out · levels[code], in the gradient's dtype.
ECOSIM_HD void backward_group(const Table& t, const std::uint8_t* codes, const void* grad, quant::Input type,
                              std::uint64_t n, std::uint64_t g, void* grad_in) {
  const std::uint64_t first = g * kGroupElements;
  const unsigned size = group_size(g, n);
  const unsigned bytes = group_code_bytes(t, size);
  std::uint32_t word = 0;
  for (unsigned k = 0; k < bytes; ++k) word |= static_cast<std::uint32_t>(codes[g * t.bits + k]) << (8u * k);
  const std::uint32_t mask = (1u << t.bits) - 1u;
  for (unsigned e = 0; e < size; ++e) {
    const float level = t.levels[(word >> (e * t.bits)) & mask];
    quant::store(grad_in, type, first + e, quant::mul_rn(quant::load(grad, type, first + e), level));
  }
}

}  // namespace ecosim::kernels::fewbit::detail
