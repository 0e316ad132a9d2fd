// Few-Bit Backward (Novikov et al., 2023): the supported activations and the dynamic-programming solver
// for the piecewise-constant approximation q of f′ with 2^b intervals that minimises ∫(f′ − q)² on
// [−range, range] (on [0, range] for even derivatives, whose codes quantise |x|).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::kernels::fewbit {

enum class Activation : std::uint8_t { gelu, silu, sigmoid, tanh, selu, softplus, elu, mish, relu, leaky_relu };

struct ActivationSpec {
  std::string_view name;  // CLI name, e.g. "gelu"
  Activation activation;
  bool even_derivative;     // f′(−x) = f′(x): codes quantise |x|
  bool piecewise_constant;  // f′ takes two values (ReLU, LeakyReLU): 1 bit is exact, more bits are refused
  ops::OpMix forward_ops;   // operations of one f(x) (erf, tanh, log1p counted as one exp each)
};

std::span<const ActivationSpec> activations();
/// The activation called `name` ("swish" is accepted for "silu"); ecosim::Error listing valid names otherwise.
const ActivationSpec& activation(std::string_view name);
const ActivationSpec& spec(Activation a);
/// f(x) and f′(x) in double: the formulas the solver and the kernels use.
double evaluate(Activation a, double x);
double evaluate_derivative(Activation a, double x);

inline constexpr std::uint64_t kMaxGrid = 100'000;  // ~100 s for 4 bits on one core

struct SolverOptions {
  double range = 10.0;         // solve on [−range, range]; (0, 1e6]
  std::uint64_t grid = 10000;  // grid cells on [−range, range] (rounded up to even so x = 0 is a grid point)
};

/// The cells the solver uses on [−range, range] for `asked`: an odd count rounded up, so that x = 0 lies on the grid.
constexpr std::uint64_t solved_grid_cells(std::uint64_t asked) { return asked + asked % 2; }

/// The optimal quantiser of f′ with 2^bits intervals. With K = 2^bits intervals on the solved domain
/// [lo, range] (lo = −range, or 0 for even derivatives): `borders` are the K − 1 inner borders,
/// ascending; `levels` the K interval means (f(s_{i+1}) − f(s_i))/(s_{i+1} − s_i); a point x (|x| for
/// even derivatives) lies in interval c when borders[c−1] ≤ x < borders[c]; points beyond the domain
/// fall in the first/last interval.
struct Quantizer {
  Activation activation = Activation::gelu;
  unsigned bits = 1;
  double range = 10.0;
  std::vector<double> borders;
  std::vector<double> levels;
  double error = 0.0;  // ∫_{−range}^{range} (f′ − q)² dx (both halves for even derivatives)
};

/// Exact dynamic programme over the grid: borders restricted to grid points, prefix integrals of f′²
/// (3-point Gauss–Legendre per cell, on pieces of at most 1/16 where cells are wider) and exact ∫f′ = f(b) − f(a), so
/// each interval's cost is O(1); O(K·n²) time, O(n) memory per DP layer plus K·n back-pointers. bits ∈ 1..4 (exactly 1
/// for piecewise- constant derivatives); ecosim::Error otherwise.
Quantizer solve(Activation a, unsigned bits, const SolverOptions& options = {});

/// Reference for checking the DP: the least error over every choice of 2^bits − 1 borders among the
/// grid points, by exhaustive enumeration (exponential: ecosim::Error above 10^7 border sets).
double solve_exhaustive(Activation a, unsigned bits, const SolverOptions& options);

/// The grid the solver uses (ascending points of the solved domain) and the squared-L2 cost of one
/// interval [grid[i], grid[j]] with its mean level, exposed so tests can check the DP by brute force.
class IntervalCost {
 public:
  IntervalCost(Activation a, const SolverOptions& options);
  std::span<const double> grid() const { return grid_; }
  /// ∫_{grid[i]}^{grid[j]} (f′ − mean)² dx, i < j, on the solved domain (one half for even derivatives);
  /// non-negative (rounding below 0 is clamped: the exact value is ≥ 0 by Cauchy–Schwarz).
  double cost(std::size_t i, std::size_t j) const;
  double mean(std::size_t i, std::size_t j) const;
  /// Factor from the solved domain to [−range, range]: 2 for even derivatives, else 1.
  double symmetry_factor() const { return even_ ? 2.0 : 1.0; }

 private:
  Activation activation_;
  bool even_;
  std::vector<double> grid_, f_, square_prefix_;  // points, f at points, ∫ f′² from grid[0]
};

}  // namespace ecosim::kernels::fewbit
