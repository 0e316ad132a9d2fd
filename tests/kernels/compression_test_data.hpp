// Test inputs for the compression kernels: seeded normal tensors, fp16/bf16 bit patterns with their exact
// fp32 values (built independently of the kernels' converters), a recording OpSink, and the GPU skip of
// ../gpu_or_skip.hpp.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

#include "../gpu_or_skip.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "ecosim/kernels/philox.hpp"
#include "ecosim/ops_counter/op_record.hpp"

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
inline HalfTensor random_fp16(std::uint64_t n, std::uint64_t seed) {
  HalfTensor t;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t w = rng::random_words(seed, 5, i).v[0];
    const std::uint32_t sign = w & 1, exponent = 10 + (w >> 1) % 10, mantissa = (w >> 8) & 0x3ff;
    t.bits.push_back(static_cast<std::uint16_t>((sign << 15) | (exponent << 10) | mantissa));
    t.values.push_back((sign ? -1.0f : 1.0f) * std::ldexp(1.0f + mantissa / 1024.0f, static_cast<int>(exponent) - 15));
  }
  return t;
}
inline HalfTensor random_bf16(std::uint64_t n, std::uint64_t seed) {
  HalfTensor t;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t w = rng::random_words(seed, 6, i).v[0];
    const std::uint32_t sign = w & 1, exponent = 120 + (w >> 1) % 10, mantissa = (w >> 8) & 0x7f;
    t.bits.push_back(static_cast<std::uint16_t>((sign << 15) | (exponent << 7) | mantissa));
    t.values.push_back((sign ? -1.0f : 1.0f) * std::ldexp(1.0f + mantissa / 128.0f, static_cast<int>(exponent) - 127));
  }
  return t;
}

using ecosim::RecordingSink;


}  // namespace ecosim::test
