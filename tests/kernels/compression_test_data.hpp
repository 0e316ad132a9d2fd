// Test inputs for the compression kernels: seeded normal tensors, fp16/bf16 bit patterns with their exact
// fp32 values (built independently of the kernels' converters), a recording OpSink, and the GPU skip of
// ../gpu_or_skip.hpp.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "../gpu_or_skip.hpp"
#include "ecosim/kernels/philox.hpp"
#include "ecosim/ops_counter/op_record.hpp"
#include "ecosim/ops_counter/sinks.hpp"

namespace ecosim::test {

inline std::vector<float> normal_tensor(std::uint64_t n, std::uint64_t seed, float mean = 0.0f, float stddev = 1.0f) {
  std::vector<float> x(n);
  for (std::uint64_t i = 0; i < n; ++i) x[i] = mean + stddev * rng::normal(seed, 99, i);
  return x;
}

/// Random normal-range half-precision numbers: `bits` holds the fp16 (or bf16) patterns, `values` their
/// exact fp32 values computed from sign, exponent and mantissa.
struct HalfTensor {
  std::vector<std::uint16_t> bits;
  std::vector<float> values;
};
/// A 16-bit float format (mantissa bits, exponent bias), the lowest of the ten biased exponents drawn (normal
/// numbers well inside the range) and the Philox stream the values come from.
struct HalfFormat {
  unsigned mantissa_bits;
  int bias;
  std::uint32_t lowest_exponent;
  std::uint64_t stream;
};
inline constexpr HalfFormat kFp16{10, 15, 10, 5}, kBf16{7, 127, 120, 6};
/// n values of `format` with random sign, mantissa and exponent.
inline HalfTensor random_half(std::uint64_t n, std::uint64_t seed, const HalfFormat& format) {
  HalfTensor t;
  const std::uint32_t mantissa_count = 1u << format.mantissa_bits;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t w = rng::random_words(seed, format.stream, i).v[0];
    const std::uint32_t sign = w & 1, exponent = format.lowest_exponent + (w >> 1) % 10,
                        mantissa = (w >> 8) & (mantissa_count - 1);
    t.bits.push_back(static_cast<std::uint16_t>((sign << 15) | (exponent << format.mantissa_bits) | mantissa));
    t.values.push_back((sign ? -1.0f : 1.0f) *
                       std::ldexp(1.0f + static_cast<float>(mantissa) / static_cast<float>(mantissa_count),
                                  static_cast<int>(exponent) - format.bias));
  }
  return t;
}
inline HalfTensor random_fp16(std::uint64_t n, std::uint64_t seed) { return random_half(n, seed, kFp16); }
inline HalfTensor random_bf16(std::uint64_t n, std::uint64_t seed) { return random_half(n, seed, kBf16); }

using ecosim::RecordingSink;

}  // namespace ecosim::test
