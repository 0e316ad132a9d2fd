// Internal: GEMM tilings' pipeline cycles remembered across configurations. A tiling's pipeline (the tile
// sequence through pipeline.hpp's ClassClock) depends on the configuration only through the array's shape, the
// accumulator width and the DRAM's timing — not on the buffers' sizes and energies, the clock or the energy
// tables — so points of a sweep that differ only in those share the cycles of the tilings they score.
#pragma once
#include <array>
#include <cstdint>
#include <optional>

#include "ecosim/accel_model/tiling.hpp"

namespace ecosim::accel {

/// Everything pipeline_cycles(shape, tiling, config) depends on (for a config of the `simple` memory model).
struct PipelineKey {
  GemmShape shape;
  std::uint64_t tm = 0, tn = 0, tk = 0;
  std::array<char, 3> order{};
  std::uint64_t rows = 0, cols = 0, accumulator_bits = 0, dram_bits_per_cycle = 0, dram_latency_cycles = 0;
  friend bool operator==(const PipelineKey&, const PipelineKey&) = default;
};
/// The key of a tiling under `config`; none when the config's DRAM is a stateful memory model (its timing has
/// parameters of its own: such tilings are not remembered).
std::optional<PipelineKey> pipeline_key(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config);

/// pipeline_cycles(shape, tiling, config), remembered in the calling thread's memo of at most kPipelineMemoCapacity
/// entries (emptied when full; one memo per thread, so threads share nothing).
inline constexpr std::size_t kPipelineMemoCapacity = 4096;
std::uint64_t remembered_pipeline_cycles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config);

}  // namespace ecosim::accel
