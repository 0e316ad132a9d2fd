// The conv tiling search: on seeded random conv layers no candidate replays faster than the chosen one beyond
// the tie window, none in the window takes less energy, and each candidate's exact pipeline cycles and energy
// equal its tile walk and are no less than its bound.
#include <catch2/catch.hpp>

#include <random>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/conv_tiling.hpp"
#include "ecosim/ops_counter/primitives.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {

/// Every candidate of the search: power-of-two tiles (clipped to the shape) that fit half of each buffer, both
/// loop orders.
std::vector<ConvTiling> all_candidates(const ConvShape& s, const AccelConfig& c) {
  const auto sizes = power_of_two_sizes;
  std::vector<ConvTiling> all;
  for (std::uint64_t tc : sizes(s.group_in_channels()))
    for (std::uint64_t tk : sizes(s.group_out_channels()))
      for (std::uint64_t th : sizes(s.out_h()))
        for (std::uint64_t tw : sizes(s.out_w())) {
          const std::uint64_t rows = std::min(s.in_h, (th - 1) * s.stride + s.kernel_h);
          const std::uint64_t cols = std::min(s.in_w, (tw - 1) * s.stride + s.kernel_w);
          if (tc * rows * cols * 8 > c.buffer(Buffer::inputs).half_bits() ||
              tk * tc * s.kernel_h * s.kernel_w * 8 > c.buffer(Buffer::weights).half_bits() ||
              th * tw * tk * c.accumulator_bits > c.buffer(Buffer::outputs).half_bits())
            continue;
          for (const bool outer : {true, false}) all.push_back(evaluate_conv_tiling(s, 8, 8, th, tw, tk, tc, outer, c));
        }
  return all;
}

/// 10 conv layers, random but seeded: 1–2 images, 1–64 channels, 4–24 pixels a side, kernels 1–7, strides
/// up to the kernel, some depthwise.
std::vector<ConvShape> sampled_layers() {
  std::mt19937_64 rng(11);
  std::vector<ConvShape> layers;
  for (int i = 0; i < 10; ++i) {
    const std::uint64_t kernel = 1 + 2 * (rng() % 4), channels = 1 + rng() % 64, side = 4 + rng() % 21;
    const bool depthwise = i % 4 == 3;
    layers.push_back({.batch = 1 + rng() % 2,
                      .in_channels = channels,
                      .in_h = side,
                      .in_w = side,
                      .out_channels = depthwise ? channels : 1 + rng() % 64,
                      .kernel_h = kernel,
                      .kernel_w = kernel,
                      .stride = 1 + rng() % std::min<std::uint64_t>(kernel, 4),
                      .padding = kernel / 2,
                      .groups = depthwise ? channels : 1});
  }
  return layers;
}

}  // namespace

TEST_CASE("no conv tiling candidate replays faster than the chosen one beyond the tie window, on sampled layers") {
  const AccelConfig c = builtin_or_slow_dram(GENERATE(false, true));
  std::size_t walked = 0;
  for (const ConvShape& s : sampled_layers()) {
    const ConvTiling best = choose_conv_tiling(s, 8, 8, c);
    INFO("conv " << s.in_channels << "→" << s.out_channels << " " << s.in_h << "² k" << s.kernel_h << " s" << s.stride
                 << " g" << s.groups << ", chose " << best.describe());
    const std::vector<ConvTiling> all = all_candidates(s, c);
    std::uint64_t fastest = ~std::uint64_t{0};
    for (const ConvTiling& t : all) fastest = std::min(fastest, t.pipeline_cycles);
    CHECK(best.pipeline_cycles <= tie_window_cycles(fastest));  // none is more than 0.1 % faster
    for (const ConvTiling& t : all) {
      INFO(t.describe());
      CHECK(t.bound_cycles <= t.pipeline_cycles);
      if (t.pipeline_cycles <= tie_window_cycles(fastest))  // ties: none takes less energy
        CHECK(best.energy_pj <= t.energy_pj * (1 + 1e-9));
      if (conv_tiles(s, 8, 8, t, c)->tile_count() > 2000) continue;  // walking stays cheap
      const auto [cycles, energy_pj] = walk(conv_tiles(s, 8, 8, t, c), c);
      CHECK(t.pipeline_cycles == cycles);
      CHECK(t.energy_pj == energy_pj);
      ++walked;
    }
    // The replay of the layer runs the chosen tiling in its pipeline cycles.
    CHECK(replay_cf({ops::conv("conv", s, true, DType::int8)}, c).total.cycles == best.pipeline_cycles);
  }
  CHECK(walked > 500);
}
