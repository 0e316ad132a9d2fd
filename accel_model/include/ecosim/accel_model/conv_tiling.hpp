// Direct convolution on the fusion-unit array, as BitFusion's hardware maps it: output tiles of th rows × tw
// columns × tk output channels, reduced over tc input channels at a time; each input tile is fetched from DRAM
// with its halo ((th−1)·stride + R rows × (tw−1)·stride + S columns, clipped to the image: padding is made
// on chip), never K²-duplicated as an im2col matrix. Loops, outermost first: group, then either output-channel
// tile, image, output-row tile, output-column tile (output channels outside), or image, row tile, column tile,
// output-channel tile (inside); the input-channel tile innermost, so partial sums stay in the outputs buffer.
// Groups run one after another (depthwise: one output channel per group, one array column). An operand tile is
// fetched again once per iteration of every loop it does not depend on outside its innermost dependency of more
// than one trip (sweeps). DRAM bits (out = max(a, w) bits; Σrows, Σcols = the clipped input rows/columns of the
// output-row/column tiles):
//   inputs  = N · C · Σrows · Σcols · a_bits · sweeps(inputs: group, image, row, column, input channel)
//   weights = K · (C/groups) · R · S · w_bits · sweeps(weights: group, output channel, input channel)
//   outputs = N · K · out_h · out_w · out
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/ops_counter/conv_shape.hpp"

namespace ecosim::accel {

struct ConvTiling {
  std::uint64_t th = 1, tw = 1, tk = 1, tc = 1;  // output rows, output columns, output and input channels per tile
  bool out_channels_outer = true;                // output-channel tiles outside the image's tiles, or inside
  std::uint64_t compute_cycles = 0;              // exact, summed over tiles
  std::uint64_t dram_bits = 0;                   // exact, summed over tiles
  std::uint64_t bound_cycles = 0;                // max(fill + compute + drain, DRAM bits / bits per cycle) ≤ pipeline
  std::uint64_t pipeline_cycles = 0;             // exact: the tile sequence through the pipeline (pipeline.hpp)
  double energy_pj = 0;                          // exact: array, DRAM and SRAM energy of the tile sequence
  std::string describe() const;
};

/// One tiling, evaluated exactly (callers pass tile sizes within the shape).
ConvTiling evaluate_conv_tiling(const ConvShape& s, unsigned a_bits, unsigned w_bits, std::uint64_t th,
                                std::uint64_t tw, std::uint64_t tk, std::uint64_t tc, bool out_channels_outer,
                                const AccelConfig& c);
/// Over both loop orders and power-of-two tile sizes (clipped to the shape) whose input tile with halo fits half the
/// inputs buffer, weight tile half the weights buffer and output tile (at accumulator_bits) half the outputs buffer:
/// among the candidates that tie with the fastest in pipeline cycles (within 0.1 %, kCycleTieDivisor), the one with
/// the least energy, then the largest tiles, then the first enumerated — as for GEMMs (tiling.hpp), scored exactly in
/// the order of bound_cycles until the bound is past the tie window. Throws ecosim::Error when no tile fits.
ConvTiling choose_conv_tiling(const ConvShape& s, unsigned a_bits, unsigned w_bits, const AccelConfig& c);
/// The tile sequence of a tiling in loop order: an operand tile is loaded when the tile before used another one,
/// the output tile stored after its last input-channel tile.
std::shared_ptr<const TileRun> conv_tiles(const ConvShape& s, unsigned a_bits, unsigned w_bits,
                                          const ConvTiling& tiling, const AccelConfig& c);

}  // namespace ecosim::accel
