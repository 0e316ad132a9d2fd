// Internal, host and device: constants and code accessors shared by the CPU reference and the CUDA kernels
// of hashed attention (and Reformer's unit keys), so both compute h_r·x the same way — a bit-selected ±x for packed
// binary codes, a multiplication for the real codes of fp-ecoformer.
#pragma once
#include <cmath>
#include <cstdint>

#include "ecosim/kernels/philox.hpp"  // ECOSIM_HD

namespace ecosim::ecoformer::detail {

inline constexpr float kNormEps = 1e-12f;   // x / max(‖x‖, eps): a zero token stays zero
inline constexpr float kMinSigma = 1e-12f;  // σ = max(mean ‖x − a‖², tiny): identical tokens give k = 1

/// x / ‖x‖ for a row of d values whose Σx² overflows fp32 (|x| ≳ 1e19), where the plain x · 1/√Σx² makes a zero
/// row: the row scaled by 2⁻⁷⁰ first (exact, a power of two; its squared norm then far below FLT_MAX). The CPU
/// references and the CUDA kernels of hashed attention and Reformer call it only where their plain Σx² is not
/// finite.
inline constexpr float kHugeRowScale = 0x1p-70f;
ECOSIM_HD void unit_row_of_huge(const float* in, float* out, long long d) {
  float norm2 = 0.0f;
  for (long long c = 0; c < d; ++c) norm2 += (in[c] * kHugeRowScale) * (in[c] * kHugeRowScale);
  const float inverse = 1.0f / sqrtf(norm2);
  for (long long c = 0; c < d; ++c) out[c] = (in[c] * kHugeRowScale) * inverse;
}

/// The RBF kernel's exp, one definition for the CPU reference and the GPU: exp in double, rounded once to
/// fp32. (fp32 expf differs between glibc and CUDA by up to an ulp.) Both double exps are within an ulp of
/// exact, so the fp32 results are equal unless the exact value lies within 2⁻²⁹ (relative) of a point halfway
/// between two floats.
ECOSIM_HD float rbf_exp(float x) { return static_cast<float>(exp(static_cast<double>(x))); }

/// Packed codes [token] of type Word; bit r set ⇔ h_r = +1.
template <class Word>
struct BinaryCodes {
  const Word* words;
  using Sum = std::int32_t;  // Σ of ±1 codes is an exact integer
  ECOSIM_HD bool bit(std::uint64_t i, unsigned r) const { return (words[i] >> r) & Word{1}; }
  template <class T>
  ECOSIM_HD T times(std::uint64_t i, unsigned r, T x) const {
    return bit(i, r) ? x : -x;
  }  // h_ir·x
  ECOSIM_HD Sum code(std::uint64_t i, unsigned r) const { return bit(i, r) ? 1 : -1; }
};

/// Real codes [token][bits] (fp-ecoformer).
struct RealCodes {
  const float* values;
  unsigned bits;
  using Sum = float;
  template <class T>
  ECOSIM_HD T times(std::uint64_t i, unsigned r, T x) const {
    return values[i * bits + r] * x;
  }
  ECOSIM_HD Sum code(std::uint64_t i, unsigned r) const { return values[i * bits + r]; }
};

}  // namespace ecosim::ecoformer::detail
