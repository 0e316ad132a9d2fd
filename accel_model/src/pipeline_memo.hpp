// Internal: what tilings' timing depends on, and their timing remembered across configurations. A tiling's (GEMM
// or direct convolution) compute cycles, fill and drain, DRAM bound and pipeline (the tile sequence through
// pipeline.hpp's ClassClock) depend on the configuration only through the array's shape, its fusion units' precision
// range, the accumulator width and the DRAM's timing — not on the buffers' sizes and energies, the clock or the energy
// tables — so points of a sweep that differ only in those share them.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "ecosim/accel_model/conv_tiling.hpp"
#include "ecosim/accel_model/tiling.hpp"

namespace ecosim::accel {

/// Everything of a configuration tilings' timing depends on (for the `simple` memory model).
struct TimingParts {
  std::uint64_t rows = 0, cols = 0, accumulator_bits = 0, dram_bits_per_cycle = 0, dram_latency_cycles = 0;
  std::uint64_t pmax_bits = 0, pmin_bits = 0;  // a fusion unit's range: its products per cycle at a precision
  friend bool operator==(const TimingParts&, const TimingParts&) = default;
};
/// The parts of `config`; none when its DRAM is a stateful memory model (its timing has parameters of its own:
/// nothing is shared then).
std::optional<TimingParts> timing_parts(const AccelConfig& config);

/// A GEMM and the timing parts of a configuration.
struct GemmTimingKey {
  GemmShape shape;
  TimingParts timing;
  friend bool operator==(const GemmTimingKey&, const GemmTimingKey&) = default;
};
/// The key of `shape` under `config`; none without timing parts.
std::optional<GemmTimingKey> timing_key(const GemmShape& shape, const AccelConfig& config);
struct GemmTimingKeyHash {
  std::size_t operator()(const GemmTimingKey& k) const;
};

/// pipeline_cycles(shape, tiling, config), remembered in the calling thread's memo of at most
/// kPipelineMemoCapacity entries (emptied when full; one memo per thread, so threads share nothing).
inline constexpr std::size_t kPipelineMemoCapacity = 4096;
std::uint64_t remembered_pipeline_cycles(const GemmShape& shape, const GemmTiling& tiling, const AccelConfig& config);

/// A convolution tiling (its tile sizes and loop order) at given precisions under the timing parts of a
/// configuration.
struct ConvTimingKey {
  ConvShape shape;
  unsigned a_bits = 0, w_bits = 0;
  std::uint64_t th = 0, tw = 0, tk = 0, tc = 0;
  bool out_channels_outer = true;
  TimingParts timing;
  friend bool operator==(const ConvTimingKey&, const ConvTimingKey&) = default;
};
struct ConvTimingKeyHash {
  std::size_t operator()(const ConvTimingKey& k) const;
};
/// A convolution tiling's timing: its bound (ConvTiling's compute cycles, DRAM bits and bound cycles) and, once
/// scored, its pipeline cycles.
struct ConvTiming {
  ConvTiling bound;
  std::optional<std::uint64_t> pipeline_cycles;
};
/// The calling thread's memo of convolution tilings' timing, emptied first when it holds more than
/// kConvTimingMemoCapacity entries (so one search's entries stay put until the next call; threads share nothing).
inline constexpr std::size_t kConvTimingMemoCapacity = std::size_t{1} << 15;
using ConvTimingMemo = std::unordered_map<ConvTimingKey, ConvTiming, ConvTimingKeyHash>;
ConvTimingMemo& conv_timing_memo();

}  // namespace ecosim::accel
