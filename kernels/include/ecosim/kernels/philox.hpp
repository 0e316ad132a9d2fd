// Philox-4×32-10 counter-based random numbers (Salmon et al., SC 2011), identical on host and device:
// the value for (seed, stream, index) is a pure function, so CPU and GPU produce the same bits and one
// tensor's seed can change while every other stays fixed.
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define ECOSIM_HD __host__ __device__ __forceinline__
#else
#define ECOSIM_HD inline
#endif

namespace ecosim::rng {

struct Philox4x32 {
  std::uint32_t v[4];
};

/// The 64-bit product a·b as its high and low words. On the device __umulhi and a 32-bit multiply: written as
/// one 64-bit product, NVVM carried the whole Philox round in 64-bit registers (several instructions per
/// xor and multiply, 3× the quantize kernels' instruction count).
ECOSIM_HD void mulhilo32(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
#if defined(__CUDA_ARCH__)
  hi = __umulhi(a, b);
  lo = a * b;
#else
  const std::uint64_t p = static_cast<std::uint64_t>(a) * b;
  hi = static_cast<std::uint32_t>(p >> 32);
  lo = static_cast<std::uint32_t>(p);
#endif
}

/// Ten rounds of Philox-4×32 on counter `c` with key (k0, k1).
ECOSIM_HD Philox4x32 philox4x32_10(Philox4x32 c, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    mulhilo32(kM0, c.v[0], hi0, lo0);
    mulhilo32(kM1, c.v[2], hi1, lo1);
    c = Philox4x32{{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
    k0 += kW0;
    k1 += kW1;
  }
  return c;
}

/// Four independent 32-bit words for element `index` of random stream `stream` under `seed`.
ECOSIM_HD Philox4x32 random_words(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  return philox4x32_10(
      Philox4x32{{static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(index >> 32), stream, 0u}},
      static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
}

/// Uniform in [0, 1) with 24 random bits (exactly representable in fp32) from one word.
ECOSIM_HD float to_uniform(std::uint32_t word) { return static_cast<float>(word >> 8) * (1.0f / 16777216.0f); }

/// U[0,1) for element `index` of `stream` under `seed`.
ECOSIM_HD float uniform(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  return to_uniform(random_words(seed, stream, index).v[0]);
}

/// Standard normal for element `index` of `stream` (Box–Muller on two words). Host and device libm may
/// differ in the last ulp: draw parameters that must match bit for bit (anchors, rotations, features) on
/// the host and copy them to the device.
inline float normal(std::uint64_t seed, std::uint32_t stream, std::uint64_t index) {
  const Philox4x32 w = random_words(seed, stream, index);
  const double u1 = (static_cast<double>(w.v[0]) + 1.0) / 4294967296.0;  // (0, 1]
  const double u2 = static_cast<double>(w.v[1]) / 4294967296.0;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
}

}  // namespace ecosim::rng
