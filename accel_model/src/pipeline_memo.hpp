// Internal: what GEMM tilings' timing depends on, and their pipeline cycles remembered across configurations. A
// tiling's compute cycles, fill and drain, DRAM bound and pipeline (the tile sequence through pipeline.hpp's
// ClassClock) depend on the configuration only through the array's shape, the accumulator width and the DRAM's
// timing — not on the buffers' sizes and energies, the clock or the energy tables — so points of a sweep that
// differ only in those share them.
#pragma once
#include <array>
#include <cstdint>
#include <optional>

#include "ecosim/accel_model/tiling.hpp"

namespace ecosim::accel {

/// A GEMM and everything of a configuration its tilings' timing depends on (for the `simple` memory model).
struct GemmTimingKey {
  GemmShape shape;
  std::uint64_t rows = 0, cols = 0, accumulator_bits = 0, dram_bits_per_cycle = 0, dram_latency_cycles = 0;
  friend bool operator==(const GemmTimingKey&, const GemmTimingKey&) = default;
};
/// The key of `shape` under `config`; none when the config's DRAM is a stateful memory model (its timing has
/// parameters of its own: nothing is shared then).
std::optional<GemmTimingKey> timing_key(const GemmShape& shape, const AccelConfig& config);
struct GemmTimingKeyHash {
  std::size_t operator()(const GemmTimingKey& k) const;
};

/// pipeline_cycles(shape, tiling, config), remembered in the calling thread's memo of at most
/// kPipelineMemoCapacity entries (emptied when full; one memo per thread, so threads share nothing).
inline constexpr std::size_t kPipelineMemoCapacity = 4096;
std::uint64_t remembered_pipeline_cycles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config);

}  // namespace ecosim::accel
