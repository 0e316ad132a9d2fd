// GEMM tiling: BitFusion's fusion factors, the fully-connected cycle formula per tile, buffer fit, and the
// closed-form traffic/cycle totals against the enumerated tile sequence.
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
}  // namespace

TEST_CASE("fusion factor (8/max(a,2))·(8/max(w,2)) — 16-bit by temporal fusion") {
  CHECK(fusion(8, 8).spatial == 1);
  CHECK(fusion(4, 4).spatial == 4);
  CHECK(fusion(2, 2).spatial == 16);
  CHECK(fusion(8, 4).spatial == 2);
  CHECK(fusion(1, 1).spatial == 16);  // 1-bit runs as 2-bit
  CHECK(fusion(16, 16).passes == 4);
  CHECK(fusion(16, 8).passes == 2);
}

TEST_CASE("every GEMM tile costs tm·ceil(tn/cols)·ceil(tk/(rows·pf)) and fits half of each buffer") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const unsigned bits[][2] = {{8, 8}, {4, 4}, {2, 2}, {8, 2}, {16, 16}};
  for (const auto& [a, w] : bits) {
    const GemmShape s{3, 200, 100, 300, a, w};
    const GemmTiling t = choose_tiling(s, c);
    const auto tiles = collect(*gemm_tiles(s, t, c));
    const Fusion f = fusion(a, w);
    std::uint64_t cycles = 0, dram = 0, macs = 0;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      const auto& tile = tiles[i];
      cycles += tile.compute_cycles;
      dram += tile.load_total_bits() + tile.store_bits;
      macs += tile.macs;
      CHECK(tile.load_bits[std::size_t(Buffer::inputs)] <= c.buffer(Buffer::inputs).half_bits());
      CHECK(tile.load_bits[std::size_t(Buffer::weights)] <= c.buffer(Buffer::weights).half_bits());
      CHECK(tile.load_bits[std::size_t(Buffer::outputs)] <= c.buffer(Buffer::outputs).half_bits());
    }
    CHECK(macs == s.batch * s.m * s.n * s.k);
    CHECK(cycles == t.compute_cycles);  // closed form = sum over the enumerated tiles
    CHECK(dram == t.dram_bits);
    // Per tile of the full size (the first one): the BitFusion FC formula.
    CHECK(tiles.front().compute_cycles == std::min(t.tm, s.m) * ceil_div(std::min(t.tn, s.n), c.cols) *
                                              ceil_div(std::min(t.tk, s.k) * f.passes, c.rows * f.spatial));
  }
}

TEST_CASE("a fully connected layer takes batch·ceil(out/cols)·ceil(in/(rows·pf)) cycles") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  // batch 64, in 512, out 1024 at 8, 4 and 2 bits: dimensions are multiples of every tile, so per-tile
  // ceilings add up to the layer's.
  for (unsigned bits : {8u, 4u, 2u}) {
    const GemmShape fc{1, 64, 1024, 512, bits, bits};
    const std::uint64_t pf = fusion(bits, bits).spatial;
    const GemmTiling t = choose_tiling(fc, c);
    CHECK(t.compute_cycles == 64 * ceil_div(1024, c.cols) * ceil_div(512, c.rows * pf));
  }
}

TEST_CASE("search minimises estimated cycles over loop orders and tiles") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const GemmShape s{1, 3136, 3136, 32, 8, 8};
  const GemmTiling best = choose_tiling(s, c);
  for (std::uint64_t tm : {1, 16, 64, 256})
    for (std::uint64_t tn : {32, 128})
      for (auto order : {std::array<char, 3>{'m', 'n', 'k'}, std::array<char, 3>{'n', 'm', 'k'}}) {
        if (tm * 32 * 8 > c.buffer(Buffer::inputs).half_bits() || tm * tn * 32 > c.buffer(Buffer::outputs).half_bits())
          continue;
        CHECK(best.estimated_cycles <= evaluate_tiling(s, tm, tn, 32, order, c).estimated_cycles);
      }
}
