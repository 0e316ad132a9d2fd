// The Few-Bit Backward dynamic programme: optimal borders (on grid points) and interval-mean levels of a
// piecewise-constant approximation of f′, minimising the squared L2 error with prefix integrals.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "ecosim/kernels/fewbit_solver.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "fewbit_functions.hpp"

namespace ecosim::kernels::fewbit {

namespace {

/// Widest piece a cell's ∫f′² is taken over at once: f′² of the activations bends on a scale of about 1, where
/// 3-point Gauss–Legendre over 1/16 is within 1e-12 (a coarse grid's cells are cut into such pieces).
constexpr double kMaxPieceWidth = 1.0 / 16;

/// ∫_a^b g by 3-point Gauss–Legendre (exact for degree 5) on each of ⌈(b − a)/kMaxPieceWidth⌉ equal pieces; only
/// interior nodes, so a jump of f′ at a cell edge is integrated exactly from the correct side.
template <class G>
double gauss_legendre3(G g, double a, double b) {
  const double pieces = std::max(1.0, std::ceil((b - a) / kMaxPieceWidth)), width = (b - a) / pieces;
  double sum = 0.0;
  for (double p = 0; p < pieces; ++p) {
    const double mid = a + (p + 0.5) * width, half = 0.5 * width, offset = half * std::sqrt(0.6);
    sum += half * (5.0 * g(mid - offset) + 8.0 * g(mid) + 5.0 * g(mid + offset)) / 9.0;
  }
  return sum;
}

}  // namespace

IntervalCost::IntervalCost(Activation a, const SolverOptions& options)
    : activation_(a), even_(spec(a).even_derivative) {
  if (!(options.range > 0) || options.range > 1e6)
    throw Error("fewbit range must be in (0, 1e6], got " + std::to_string(options.range));
  if (options.grid == 0) throw Error("fewbit grid must be positive");
  if (options.grid > kMaxGrid)
    throw Error("fewbit grid above " + std::to_string(kMaxGrid) +
                " cells is refused (the DP takes O(4^bits·grid²) time)");
  const std::uint64_t cells_full = solved_grid_cells(options.grid);
  const std::uint64_t cells = even_ ? cells_full / 2 : cells_full;
  grid_.resize(cells + 1);
  for (std::uint64_t i = 0; i <= cells; ++i) {
    // Integer numerators keep the points symmetric and put 0 exactly on the grid.
    const double numerator = even_ ? static_cast<double>(i) : 2.0 * static_cast<double>(i) - double(cells);
    grid_[i] = options.range * numerator / static_cast<double>(cells);
  }
  f_.resize(grid_.size());
  square_prefix_.assign(grid_.size(), 0.0);
  const auto square = [a](double x) {
    const double d = detail::derivative(a, x);
    return d * d;
  };
  for (std::size_t i = 0; i < grid_.size(); ++i) {
    f_[i] = detail::value(a, grid_[i]);
    if (i > 0) square_prefix_[i] = square_prefix_[i - 1] + gauss_legendre3(square, grid_[i - 1], grid_[i]);
  }
}

double IntervalCost::mean(std::size_t i, std::size_t j) const { return (f_[j] - f_[i]) / (grid_[j] - grid_[i]); }

double IntervalCost::cost(std::size_t i, std::size_t j) const {
  // ∫(f′ − m)² = ∫f′² − (∫f′)²/L with m = ∫f′/L and ∫f′ = f(b) − f(a).
  const double rise = f_[j] - f_[i];
  return std::max(0.0, square_prefix_[j] - square_prefix_[i] - rise * rise / (grid_[j] - grid_[i]));
}

Quantizer solve(Activation a, unsigned bits, const SolverOptions& options) {
  if (bits < 1 || bits > 4) throw Error("fewbit bits must be 1..4, got " + std::to_string(bits));
  if (spec(a).piecewise_constant && bits != 1)
    throw Error(std::string(spec(a).name) + "'s derivative is piecewise constant: 1 bit is exact, use bits = 1");
  const IntervalCost cost(a, options);
  const std::size_t last = cost.grid().size() - 1;  // grid cells
  const std::size_t intervals = std::size_t{1} << bits;
  if (last < intervals)
    throw Error("fewbit grid of " + std::to_string(last) + " cells is too coarse for " + std::to_string(intervals) +
                " intervals");

  // best[j]: least cost of covering [grid[0], grid[j]] with k intervals; from[k][j]: where the k-th starts.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> best(last + 1, kInf), next(last + 1, kInf);
  std::vector<std::uint32_t> from((intervals + 1) * (last + 1), 0);
  for (std::size_t j = 1; j <= last; ++j) best[j] = cost.cost(0, j);
  for (std::size_t k = 2; k <= intervals; ++k) {
    // Only the last layer needs just j = last; interval k ends at j ≥ k.
    const std::size_t first_j = k == intervals ? last : k;
    std::fill(next.begin(), next.end(), kInf);
    for (std::size_t j = first_j; j <= last; ++j) {
      double least = kInf;
      std::uint32_t arg = 0;
      for (std::size_t i = k - 1; i < j; ++i) {
        const double c = best[i] + cost.cost(i, j);
        if (c < least) {
          least = c;
          arg = static_cast<std::uint32_t>(i);
        }
      }
      next[j] = least;
      from[k * (last + 1) + j] = arg;
    }
    best.swap(next);
  }

  std::vector<std::size_t> ends(intervals + 1);
  ends[intervals] = last;
  for (std::size_t k = intervals; k >= 2; --k) ends[k - 1] = from[k * (last + 1) + ends[k]];
  ends[0] = 0;

  Quantizer q;
  q.activation = a;
  q.bits = bits;
  q.range = options.range;
  for (std::size_t k = 1; k < intervals; ++k) q.borders.push_back(cost.grid()[ends[k]]);
  for (std::size_t k = 0; k < intervals; ++k) q.levels.push_back(cost.mean(ends[k], ends[k + 1]));
  q.error = best[last] * cost.symmetry_factor();
  return q;
}

}  // namespace ecosim::kernels::fewbit
