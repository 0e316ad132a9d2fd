// Internal: the arithmetic that the CPU references and the CUDA kernels share, written once for host and
// device so both compute the identical float expression (explicit round-to-nearest intrinsics on the device,
// -ffp-contract=off / --fmad=false for the files that include it): input conversion, output rounding to
// fp16/bf16 (nearest even), bf16 rounding outward, the group metadata and exact stochastic rounding.
#pragma once
#include <cstdint>
#include <cstring>

#include "ecosim/kernels/philox.hpp"

namespace ecosim::quant {

#if defined(__CUDA_ARCH__)
ECOSIM_HD float add_rn(float a, float b) { return __fadd_rn(a, b); }
ECOSIM_HD float sub_rn(float a, float b) { return __fsub_rn(a, b); }
ECOSIM_HD float mul_rn(float a, float b) { return __fmul_rn(a, b); }
ECOSIM_HD float div_rn(float a, float b) { return __fdiv_rn(a, b); }
ECOSIM_HD std::uint32_t float_bits(float f) { return __float_as_uint(f); }
ECOSIM_HD float bits_float(std::uint32_t u) { return __uint_as_float(u); }
#else
ECOSIM_HD float add_rn(float a, float b) { return a + b; }
ECOSIM_HD float sub_rn(float a, float b) { return a - b; }
ECOSIM_HD float mul_rn(float a, float b) { return a * b; }
ECOSIM_HD float div_rn(float a, float b) { return a / b; }
ECOSIM_HD std::uint32_t float_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
ECOSIM_HD float bits_float(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
#endif

ECOSIM_HD bool is_finite(float f) { return (float_bits(f) & 0x7f800000u) != 0x7f800000u; }

/// Input element types, converted to fp32 on load (exactly: fp16 and bf16 are subsets of fp32).
enum class Input : std::uint8_t { fp32, fp16, bf16 };

ECOSIM_HD float bf16_to_float(std::uint16_t h) { return bits_float(static_cast<std::uint32_t>(h) << 16); }

ECOSIM_HD float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));  // Inf / NaN
  if (exponent != 0) return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  // Subnormal (or zero): mantissa · 2^-24, exact in fp32.
  const float magnitude = mul_rn(static_cast<float>(mantissa), 5.9604644775390625e-8f);
  return bits_float(sign | float_bits(magnitude));
}

ECOSIM_HD float load(const void* data, Input type, std::uint64_t i) {
  switch (type) {
    case Input::fp16: return fp16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case Input::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    default: return static_cast<const float*>(data)[i];
  }
}

/// fp32 → fp16 bits, round to nearest even (overflow to ±Inf).
ECOSIM_HD std::uint16_t float_to_fp16(float f) {
  const std::uint32_t u = float_bits(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);   // NaN
  if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // ≥ 65520 rounds to Inf
  if (a < 0x38800000u) {
    // Below the smallest normal 2^-14: subnormal steps of 2^-24; |f|·2^24 is exact, rint rounds to even.
    const float steps = rintf(mul_rn(bits_float(a), 16777216.0f));
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(steps));
  }
  std::uint32_t h = (((a >> 23) - 112u) << 10) | ((a & 0x7fffffu) >> 13);
  const std::uint32_t rest = a & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // a carry into the exponent is correct
  return static_cast<std::uint16_t>(sign | h);
}

/// fp32 → bf16 bits, round to nearest even.
ECOSIM_HD std::uint16_t float_to_bf16(float f) {
  const std::uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

ECOSIM_HD void store(void* data, Input type, std::uint64_t i, float value) {
  switch (type) {
    case Input::fp16: static_cast<std::uint16_t*>(data)[i] = float_to_fp16(value); break;
    case Input::bf16: static_cast<std::uint16_t*>(data)[i] = float_to_bf16(value); break;
    default: static_cast<float*>(data)[i] = value;
  }
}

/// The largest bf16 value ≤ x (x finite); may be −Inf when x is below the lowest bf16.
ECOSIM_HD std::uint16_t bf16_round_down(float x) {
  const std::uint32_t u = float_bits(x);
  std::uint32_t t = u & 0xffff0000u;                                // truncation rounds toward zero
  if ((u & 0xffffu) != 0 && (u & 0x80000000u) != 0) t += 0x10000u;  // negative: one ulp further from zero
  return static_cast<std::uint16_t>(t >> 16);
}

/// The smallest bf16 value ≥ x for x ≥ 0 (may be +Inf).
ECOSIM_HD std::uint16_t bf16_round_up_nonnegative(float x) {
  const std::uint32_t u = float_bits(x);
  std::uint32_t t = u & 0xffff0000u;
  if ((u & 0xffffu) != 0) t += 0x10000u;
  return static_cast<std::uint16_t>(t >> 16);
}

/// Group metadata in bf16: zero = min rounded down, range rounded up so that zero + range ≥ max exactly
/// (the rounding error of max − zero is recovered with TwoSum and pushes the range one float ulp up).
struct Metadata {
  std::uint16_t zero_bf16, range_bf16;
};
/// −0 and +0 are canonicalised to +0 first (min/max may pick either depending on order).
ECOSIM_HD Metadata group_metadata(float min_value, float max_value) {
  min_value = add_rn(min_value, 0.0f);
  max_value = add_rn(max_value, 0.0f);
  const std::uint16_t z = bf16_round_down(min_value);
  const float zero = bf16_to_float(z);
  const float diff = sub_rn(max_value, zero);
  // TwoSum of max + (−zero): err is the exact remainder max − zero − diff.
  const float back = sub_rn(diff, max_value);
  const float err = add_rn(sub_rn(max_value, sub_rn(diff, back)), sub_rn(-zero, back));
  const float covering = err > 0.0f ? bits_float(float_bits(diff) + 1u) : diff;  // diff ≥ 0 here
  return {z, bf16_round_up_nonnegative(covering)};
}

/// k < 2^23 as a float, exactly, without an int→float conversion (the conversion unit runs at a quarter of
/// the FP32 rate on the GPU): the float 2^23 + k has k in its mantissa, and subtracting 2^23 is exact.
ECOSIM_HD float small_uint_to_float(std::uint32_t k) { return sub_rn(bits_float(0x4b000000u | k), 8388608.0f); }

/// ⌊u⌋ for 0 < u < 2^23: one round-down conversion on the device, std::floor on the host (the same integer).
ECOSIM_HD std::uint32_t floor_to_uint(float u) {
#if defined(__CUDA_ARCH__)
  return __float2uint_rd(u);
#else
  return static_cast<std::uint32_t>(std::floor(u));
#endif
}

/// Exact stochastic rounding of u ∈ [0, levels]: ⌊u⌋ + [U < frac(u)], so E[code] = u up to the 2^-16
/// resolution of U and values already on the grid (frac = 0) never move; clamped to [0, levels]
/// (levels < 2^23, so ⌊u⌋ and u − ⌊u⌋ are exact).
ECOSIM_HD std::uint32_t stochastic_round(float u, float uniform, std::uint32_t levels) {
  if (!(u > 0.0f)) return 0;
  if (u >= static_cast<float>(levels)) return levels;
  const std::uint32_t whole = floor_to_uint(u);
  const std::uint32_t code = whole + (uniform < sub_rn(u, small_uint_to_float(whole)) ? 1u : 0u);
  return code < levels ? code : levels;
}

/// U[0,1) with 16 random bits for the 8 consecutive elements [8·block, 8·block + 8) of row `row` (an ActNN
/// sample or a Mesa head segment): one Philox-4×32-10 call keyed by the seed, counter (block, stream, row).
struct Uniform8 {
  rng::Philox4x32 words;
  /// k / 2^16 for the 16-bit k of element j, built as the float 1 + k / 2^16 minus 1 (both exact: no conversion).
  ECOSIM_HD float operator[](unsigned j) const {
    const std::uint32_t k = (words.v[j >> 1] >> ((j & 1u) * 16u)) & 0xffffu;
    return sub_rn(bits_float(0x3f800000u | (k << 7)), 1.0f);
  }
};
ECOSIM_HD Uniform8 uniforms8(std::uint64_t seed, std::uint32_t stream, std::uint32_t row, std::uint64_t block) {
  return {rng::philox4x32_10(
      rng::Philox4x32{{static_cast<std::uint32_t>(block), static_cast<std::uint32_t>(block >> 32), stream, row}},
      static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32))};
}

/// Random streams of the schemes (the same seed gives independent draws per scheme).
inline constexpr std::uint32_t kActnnStream = 0xac7'0001u;
inline constexpr std::uint32_t kMesaStream = 0x3e5a'0002u;

}  // namespace ecosim::quant

namespace ecosim::quant {

/// The narrowest range quantized over itself: below it B / range overflows fp32 (255 / 2^-120 < FLT_MAX), and
/// every code would saturate; a narrower nonzero range is quantized over 2^-120 (error ≤ one step of it,
/// 2.9e-39 at 8 bits), scale and step alike.
ECOSIM_HD float quantized_range(float range) {
  constexpr float kNarrowest = 0x1p-120f;
  return range > 0.0f && range < kNarrowest ? kNarrowest : range;
}
/// B / range (0 for a constant group, whose codes are all 0 and dequantize to zero exactly).
ECOSIM_HD float quant_scale(std::uint16_t range_bf16, std::uint32_t levels) {
  const float range = quantized_range(bf16_to_float(range_bf16));
  return range > 0.0f ? div_rn(static_cast<float>(levels), range) : 0.0f;
}
/// range / B, the dequantization step.
ECOSIM_HD float quant_step(std::uint16_t range_bf16, std::uint32_t levels) {
  return div_rn(quantized_range(bf16_to_float(range_bf16)), static_cast<float>(levels));
}
ECOSIM_HD std::uint32_t quantize(float x, float zero, float scale, float uniform, std::uint32_t levels) {
  return stochastic_round(mul_rn(sub_rn(x, zero), scale), uniform, levels);
}
ECOSIM_HD float dequantize(std::uint32_t code, float zero, float step) {
  return add_rn(mul_rn(small_uint_to_float(code), step), zero);
}
/// Metadata usable for quantization: both finite (a range overflowing bf16 cannot be stored).
ECOSIM_HD bool metadata_finite(Metadata m) {
  return is_finite(bf16_to_float(m.zero_bf16)) && is_finite(bf16_to_float(m.range_bf16));
}

}  // namespace ecosim::quant

namespace ecosim::quant {

/// Mesa's running scales: exact on the first step, exponential moving average after.
struct MesaScale {
  float alpha, beta;
};
ECOSIM_HD MesaScale mesa_update(bool first, MesaScale old, float min_value, float max_value, float momentum) {
  min_value = add_rn(min_value, 0.0f);  // −0 → +0, as in group_metadata
  max_value = add_rn(max_value, 0.0f);
  const float range = sub_rn(max_value, min_value);
  if (first) return {range, min_value};
  const float rest = sub_rn(1.0f, momentum);
  return {add_rn(mul_rn(momentum, old.alpha), mul_rn(rest, range)),
          add_rn(mul_rn(momentum, old.beta), mul_rn(rest, min_value))};
}
ECOSIM_HD bool mesa_finite(MesaScale s) { return is_finite(s.alpha) && is_finite(s.beta); }
ECOSIM_HD float mesa_scale(float alpha) { return alpha > 0.0f ? div_rn(255.0f, quantized_range(alpha)) : 0.0f; }
ECOSIM_HD float mesa_step(float alpha) { return div_rn(quantized_range(alpha), 255.0f); }

}  // namespace ecosim::quant
