// Internal: an op's tiles alone on a fresh memory model — the tile pipeline (pipeline.hpp) with every transfer
// timed by the configured memory model through its row segments (tile_transfers.hpp), as the SystemC engine times
// an op that runs first with nothing prefetched. The tiling searches rank candidates by it under a stateful memory
// model (`dram`), whose transfers a bound on their bits alone cannot see: the bursts a row segment spans, the
// channels and banks it falls on, open rows.
#pragma once
#include <cstdint>
#include <memory>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

/// The cycles of an op of the one run `run` through the pipeline on a fresh model of `config`'s memory, the op
/// starting at cycle 0. Its tiles compute one after another (none TileWork::beside_previous: GEMM and convolution
/// nests); std::logic_error otherwise.
std::uint64_t memory_walked_cycles(const std::shared_ptr<const TileRun>& run, const AccelConfig& config);

/// An estimate of memory_walked_cycles(run, config) for an op moving `dram_bits` whose cycles are at least
/// `bound_cycles`: its first tiles walked until the DMA has moved kMemorySampleBits (or kMemorySampleTiles tiles,
/// which bounds the sample of an op whose tiles move few bits), their rate over all its bits
/// (at least the bound) — what the tiling searches order the candidates they walk by.
double memory_walked_estimate(const std::shared_ptr<const TileRun>& run, const AccelConfig& config,
                              std::uint64_t dram_bits, std::uint64_t bound_cycles);

/// The most DRAM bits one tiling search walks through the memory model (its walked candidates' traffic summed):
/// at most about a tenth of a second of walking on one DDR4 channel. Candidates past it are not walked
/// (fastest_walked_candidate); 8× as many found tilings at most 0.3 % faster (a Llama-3 8B decode layer, PVTv2-B0).
inline constexpr std::uint64_t kMemoryWalkBits = std::uint64_t{1} << 26;
/// The bits, at most the tiles, of the sample walk of memory_walked_estimate.
inline constexpr std::uint64_t kMemorySampleBits = std::uint64_t{1} << 17, kMemorySampleTiles = 256;

}  // namespace ecosim::accel
