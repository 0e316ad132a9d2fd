// Exhaustive reference for the Few-Bit DP: enumerates every set of inner borders on a (coarse) grid, so
// tests and `ecosim validate` can check that the dynamic programme is optimal.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "ecosim/kernels/fewbit_solver.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::kernels::fewbit {

namespace {

/// C(n, k) in double (only compared against a limit).
double combinations(std::size_t n, std::size_t k) {
  double c = 1;
  for (std::size_t i = 0; i < k; ++i) c = c * static_cast<double>(n - i) / static_cast<double>(i + 1);
  return c;
}

/// Least cost of covering [grid[start], grid[last]] with `left` intervals.
double least(const IntervalCost& cost, std::size_t start, std::size_t last, std::size_t left) {
  if (left == 1) return cost.cost(start, last);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t j = start + 1; j + (left - 1) <= last; ++j)
    best = std::min(best, cost.cost(start, j) + least(cost, j, last, left - 1));
  return best;
}

}  // namespace

double solve_exhaustive(Activation a, unsigned bits, const SolverOptions& options) {
  if (bits < 1 || bits > 4) throw Error("fewbit bits must be 1..4, got " + std::to_string(bits));
  const IntervalCost cost(a, options);
  const std::size_t last = cost.grid().size() - 1, intervals = std::size_t{1} << bits;
  if (last < intervals) throw Error("fewbit grid too coarse for " + std::to_string(intervals) + " intervals");
  if (combinations(last - 1, intervals - 1) > 1e7)
    throw Error("fewbit exhaustive search over more than 10^7 border sets is refused; use a coarser grid");
  return least(cost, 0, last, intervals) * cost.symmetry_factor();
}

}  // namespace ecosim::kernels::fewbit
