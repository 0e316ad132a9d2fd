// IEEE binary16 conversions on the host (round to nearest even, subnormals, ±∞), for the fp16 MSA path.
#include <bit>
#include <cmath>

#include "ecosim/ecoformer/msa_fp16.hpp"

namespace ecosim::ecoformer {

std::uint16_t to_half_bits(float x) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u)  // ∞ or NaN (NaN keeps a quiet payload bit)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0u));
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // rounds above 65504
  if (magnitude < 0x38800000u) {  // below 2^−14: subnormal half = round(|x| / 2^−24)
    const float scaled = std::bit_cast<float>(magnitude) * 16777216.0f;  // exact: multiplies by 2^24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
  }
  // normal: rebias the exponent (127 → 15) and round the 13 dropped mantissa bits to nearest even
  const std::uint32_t rebased = magnitude - ((127u - 15u) << 23);
  const std::uint32_t rounded = rebased + 0x0fffu + ((rebased >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

float from_half_bits(std::uint16_t h) {
  const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0x1f) return mantissa ? NAN : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(mantissa), -24);
  return sign * std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
}

}  // namespace ecosim::ecoformer
