// GEMM tiling on the fusion-unit array: over every loop order and power-of-two tile size whose tiles fit half of
// each buffer (the public BitFusion simulator's candidates), the fewest cycles of the tile pipeline the replay
// runs (pipeline.hpp), ties (within 0.1 %) broken by energy.
// Cycles of one tile: tm · ceil(tn/cols) · ceil(tk·passes/(rows·pf)) (m = streamed rows, n = output columns,
// k = reduction; pf and passes from the operand precisions).
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/conv_tiling.hpp"
#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

/// Per fusion unit per cycle: `spatial` MACs from fusing BitBricks, times `1/passes` for temporal fusion of
/// operands wider than the unit. A unit of precision range pmax/pmin holds (pmax/pmin)² BitBricks of pmin × pmin
/// bits; an a × w-bit product takes ⌈a/pmin⌉·⌈w/pmin⌉ of them (an operand narrower than pmin a whole brick's
/// width): as many products a cycle as fit, or, needing more bricks than the unit has, that many passes. For
/// BitFusion's 8/2 unit: (8/max(a,2))·(8/max(w,2)) for a, w ≤ 8; 16×16 bits = 4 cycles per MAC.
struct Fusion {
  std::uint64_t spatial = 1, passes = 1;
};
Fusion fusion(unsigned a_bits, unsigned w_bits, const AccelConfig& c);

/// C[batch][m×n] = A[batch][m×k] · B[batch][k×n]; A streams through the array (a_bits), B is held (w_bits).
struct GemmShape {
  std::uint64_t batch = 1, m = 1, n = 1, k = 1;
  unsigned a_bits = 8, w_bits = 8;
  // A strip of a longer sum over k (a causal attention's context, in strips of keys): its first k tile adds onto
  // partial sums already in DRAM (`continues`), its last stores partial sums rather than outputs (`goes_on`).
  bool continues = false, goes_on = false;
  unsigned out_bits() const { return a_bits > w_bits ? a_bits : w_bits; }
  friend bool operator==(const GemmShape&, const GemmShape&) = default;
};

struct GemmTiling {
  std::uint64_t tm = 1, tn = 1, tk = 1;
  std::array<char, 3> order = {'m', 'n', 'k'};  // loops, outermost first (batch is outside all three)
  std::uint64_t compute_cycles = 0;             // exact, summed over tiles
  std::uint64_t dram_bits = 0;                  // exact, summed over tiles
  std::uint64_t bound_cycles = 0;               // max(fill + compute + drain, DRAM bits / bits per cycle) ≤ pipeline
  std::uint64_t pipeline_cycles = 0;            // exact: the tile sequence through the pipeline (≥ bound_cycles)
  double energy_pj = 0;                         // exact: array, DRAM and SRAM energy of the tile sequence
  std::string describe() const;
};

/// The candidate tile sizes along a dimension, ascending: the powers of two below it, `unit` times each power of
/// two below it (an array side that is no power of two: its whole columns, or rows at a fusion), and the
/// dimension itself.
std::vector<std::uint64_t> tile_sizes(std::uint64_t dim, std::uint64_t unit = 1);

/// Cycles the array spends on one tile.
std::uint64_t tile_cycles(std::uint64_t tm, std::uint64_t tn, std::uint64_t tk, Fusion f, const AccelConfig& c);

/// One array tile of tm streamed rows × tn output columns × tk reduction at the given precisions: its cycles,
/// MACs and buffer accesses (weights read once, inputs once per column block, outputs read and written once per
/// k-step); its loads and stores are left to the mapping.
TileWork array_tile(std::uint64_t tm, std::uint64_t tn, std::uint64_t tk, unsigned a_bits, unsigned w_bits,
                    const AccelConfig& c);

/// Pipeline cycles within 1/kCycleTieDivisor (0.1 %) of the fastest candidate's count as equally fast: the
/// model has no per-tile overhead, so below that resolution it would trade energy and a tenfold tile count
/// (tiles of one row) for a few cycles of pipeline fill and drain.
inline constexpr std::uint64_t kCycleTieDivisor = 1000;
/// The most cycles a candidate may take and still tie with the fastest, `fastest_cycles`.
std::uint64_t tie_window_cycles(std::uint64_t fastest_cycles);

/// Among the candidates that tie with the fastest in pipeline cycles, the one with the least energy, then
/// the largest tiles, then the first enumerated; throws ecosim::Error when no tile fits (cannot happen for a
/// validated config). Candidates that can tie (by a lower bound on their cycles) are tried in the order of their
/// energy and scored exactly, others scored by bound only as far as needed to settle whether one ties, so no
/// candidate outside the window is faster (fastest_candidate.hpp).
GemmTiling choose_tiling(const GemmShape& shape, const AccelConfig& config);
/// choose_tiling and choose_conv_tiling for one configuration, remembering the last kCapacity answers of each by
/// shape: a replay plans every op of a trace with one configuration, and models repeat their layers' shapes (a
/// search walks the `dram` memory model, so it is worth remembering).
class TilingMemo {
 public:
  static constexpr std::size_t kCapacity = 64;  // bounded: a replay's memory does not grow with the trace
  /// `config` must outlive the memo.
  explicit TilingMemo(const AccelConfig& config) : config_(config) {}
  GemmTiling choose(const GemmShape& shape);
  ConvTiling choose_conv(const ConvShape& shape, unsigned a_bits, unsigned w_bits);
  /// The one tiling of a causal GEMM's strips of keys (plan_causal_strips), made by `make` once per shape, keys
  /// axis and sliding window.
  GemmTiling choose_strips(const GemmShape& shape, bool keys_along_n, std::uint64_t window,
                           const std::function<GemmTiling()>& make);

 private:
  /// The last kCapacity answers, by key (the oldest replaced once full).
  template <class Key, class Value>
  struct Remembered {
    std::vector<std::pair<Key, Value>> entries;
    std::size_t next = 0;
    template <class Make>
    Value get(const Key& key, const Make& make) {
      for (const auto& [known, value] : entries)
        if (known == key) return value;
      Value value = make();
      if (entries.size() < kCapacity)
        entries.emplace_back(key, value);
      else
        entries[next++ % kCapacity] = {key, value};
      return value;
    }
  };
  const AccelConfig& config_;
  Remembered<GemmShape, GemmTiling> gemm_;
  Remembered<std::tuple<ConvShape, unsigned, unsigned>, ConvTiling> conv_;
  Remembered<std::tuple<GemmShape, bool, std::uint64_t>, GemmTiling> strips_;
};

/// The cycles the closed form (and SystemC) replays the tiling's tile sequence in, computed from the loop
/// nest without walking it: a tile's pipeline stage depends on its loop indices only through whether they,
/// or the neighbouring tiles', are first or last, so each class of indices is timed once (TileRun::visit_classes).
std::uint64_t pipeline_cycles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config);
/// Evaluates one tiling (callers pass only tilings that fit).
GemmTiling evaluate_tiling(const GemmShape& shape, std::uint64_t tm, std::uint64_t tn, std::uint64_t tk,
                           std::array<char, 3> order, const AccelConfig& config);
/// The tile sequence of a tiling, in loop order, with the loads each tile needs (operands reused while
/// the loop order keeps them resident) and the stores of output tiles when they are evicted; generated as
/// cursors walk it (batch · trips_m · trips_n · trips_k tiles).
std::shared_ptr<const TileRun> gemm_tiles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config);

}  // namespace ecosim::accel
