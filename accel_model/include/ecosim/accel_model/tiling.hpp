// GEMM tiling on the fusion-unit array, as the public BitFusion simulator does it: over every loop order and
// power-of-two tile size whose tiles fit half of each buffer, the fewest estimated cycles, ties broken by energy.
// Cycles of one tile: tm · ceil(tn/cols) · ceil(tk·passes/(rows·pf)) (m = streamed rows, n = output columns,
// k = reduction; pf and passes from the operand precisions).
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

/// Per fusion unit per cycle: `spatial` MACs from fusing BitBricks, times `1/passes` for temporal fusion of
/// operands wider than 8 bits. (8/max(a,2))·(8/max(w,2)) for a, w ≤ 8; each operand of 16 (32) bits takes
/// 2 (4) passes at 8 bits, so 16×16 bits = 4 cycles per MAC.
struct Fusion {
  std::uint64_t spatial = 1, passes = 1;
};
Fusion fusion(unsigned a_bits, unsigned w_bits);

/// C[batch][m×n] = A[batch][m×k] · B[batch][k×n]; A streams through the array (a_bits), B is held (w_bits).
struct GemmShape {
  std::uint64_t batch = 1, m = 1, n = 1, k = 1;
  unsigned a_bits = 8, w_bits = 8;
  unsigned out_bits() const { return a_bits > w_bits ? a_bits : w_bits; }
};

struct GemmTiling {
  std::uint64_t tm = 1, tn = 1, tk = 1;
  std::array<char, 3> order = {'m', 'n', 'k'};  // loops, outermost first (batch is outside all three)
  std::uint64_t compute_cycles = 0;             // exact, summed over tiles
  std::uint64_t dram_bits = 0;                  // exact, summed over tiles
  std::uint64_t estimated_cycles = 0;           // max(compute, memory), as the public simulator
  double estimated_energy_pj = 0;
  std::string describe() const;
};

/// Cycles the array spends on one tile.
std::uint64_t tile_cycles(std::uint64_t tm, std::uint64_t tn, std::uint64_t tk, Fusion f, const AccelConfig& c);

/// The best tiling; throws ecosim::Error when no tile fits (cannot happen for a validated config).
GemmTiling choose_tiling(const GemmShape& shape, const AccelConfig& config);
/// Evaluates one tiling in closed form (nullopt-free: callers pass only tilings that fit).
GemmTiling evaluate_tiling(const GemmShape& shape, std::uint64_t tm, std::uint64_t tn, std::uint64_t tk,
                           std::array<char, 3> order, const AccelConfig& config);
/// The tile sequence of a tiling, in loop order, with the loads each tile needs (operands reused while
/// the loop order keeps them resident) and the stores of output tiles when they are evicted; generated as
/// cursors walk it (batch · trips_m · trips_n · trips_k tiles).
std::shared_ptr<const TileRun> gemm_tiles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config);

}  // namespace ecosim::accel
