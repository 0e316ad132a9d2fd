// GACT (DESIGN §6): one bit width per tensor from {1, 2, 4, 8, 32 = raw}, chosen to minimise
// Σ_l c_l·S(b_l), S(b) = (2^b − 1)^-2 (S(32) = 0), under Σ_l b_l·D_l ≤ average_bits·Σ_l D_l; tensors are
// compressed with the ActNN group quantizer. The sensitivity c_l is estimated from two gradient evaluations
// that differ only in tensor l's seed: c_l ≈ ½‖g0 − g1‖² / S(b_l) (E‖g0 − g1‖² = 2·Var g).
// LinearLayer is the demonstration with a closed form: y = X·W with a fixed upstream gradient G, so
// ∇W = X̂ᵀG and Var ∇W = Σ_{i,j} Var(X̂_ij)·‖G_i‖² (row i of G).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace ecosim::kernels::gact {

inline constexpr std::array<unsigned, 5> kBitChoices = {1, 2, 4, 8, 32};

/// S(b) = (2^b − 1)^-2, 0 for 32 (raw); throws ecosim::Error for a width not in kBitChoices.
double variance_factor(unsigned bits);

/// Greedy: every tensor starts at 1 bit; repeatedly raise the tensor whose next width gives the largest
/// decrease of c·S per bit added, among those that still fit the budget. A tensor kept raw (width 32 in the
/// result) costs its own dtype's width, raw_bits[l] (16 for fp16 and bf16; empty: 32 for every tensor), so an
/// fp16 tensor under a 16-bit budget stays raw. Throws ecosim::Error when sizes, sensitivities and raw widths
/// differ in length, a size is 0, a sensitivity is negative/NaN, a raw width is not 16 or 32, or the budget is
/// < 1 bit.
std::vector<unsigned> allocate_bits(const std::vector<double>& sensitivity, const std::vector<std::uint64_t>& elements,
                                    double average_bits, const std::vector<unsigned>& raw_bits = {});

/// X [rows × in] and G [rows × out], row-major.
struct LinearLayer {
  std::uint64_t rows = 0, in = 0, out = 0;
  std::vector<float> x, upstream;

  /// ∇W = X̂ᵀG [in × out] with X quantized at `bits` (32: exact) under `seed`.
  std::vector<double> weight_gradient(unsigned bits, std::uint64_t seed) const;
  /// Σ_{i,j} Var(X̂_ij)·‖G_i‖², the total variance of ∇W (E‖∇W − E∇W‖²).
  double gradient_variance(unsigned bits) const;
  /// ½‖g(seed0) − g(seed1)‖² / S(bits).
  double estimate_sensitivity(unsigned bits, std::uint64_t seed0, std::uint64_t seed1) const;
};

}  // namespace ecosim::kernels::gact
