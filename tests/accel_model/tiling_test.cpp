// GEMM tiling: BitFusion's fusion factors, the fully-connected cycle formula per tile, buffer fit, the
// closed-form traffic/cycle/energy totals against the enumerated tile sequence, and the search's choice: no
// candidate replays faster (seeded random shapes).
#include <catch2/catch.hpp>

#include <bit>
#include <random>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/pipeline.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {}  // namespace

TEST_CASE("fusion factor (8/max(a,2))·(8/max(w,2)) — 16-bit by temporal fusion") {
  const AccelConfig c = builtin_config("bitfusion-45nm");  // BitFusion's 8/2 fusion unit
  CHECK(fusion(8, 8, c).spatial == 1);
  CHECK(fusion(4, 4, c).spatial == 4);
  CHECK(fusion(2, 2, c).spatial == 16);
  CHECK(fusion(8, 4, c).spatial == 2);
  CHECK(fusion(1, 1, c).spatial == 16);  // 1-bit runs as 2-bit
  CHECK(fusion(16, 16, c).passes == 4);
  CHECK(fusion(16, 8, c).passes == 2);
}

TEST_CASE("a fusion unit's precision range sets its throughput: (pmax/pmin)² bricks of pmin bits") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  const auto at = [&](std::uint64_t pmax, std::uint64_t pmin, unsigned a, unsigned w) {
    c.pmax_bits = pmax;
    c.pmin_bits = pmin;
    const Fusion f = fusion(a, w, c);
    return std::pair{f.spatial, f.passes};
  };
  CHECK(at(2, 2, 8, 8) == std::pair<std::uint64_t, std::uint64_t>{1, 16});  // one brick: 4 × 4 pieces in turn
  CHECK(at(2, 2, 2, 2) == std::pair<std::uint64_t, std::uint64_t>{1, 1});
  CHECK(at(16, 16, 2, 2) == std::pair<std::uint64_t, std::uint64_t>{1, 1});  // no fusion below 16 bits
  CHECK(at(16, 16, 16, 16) == std::pair<std::uint64_t, std::uint64_t>{1, 1});
  CHECK(at(16, 2, 8, 8) == std::pair<std::uint64_t, std::uint64_t>{4, 1});  // 64 bricks, 16 a product
  CHECK(at(4, 2, 8, 8) == std::pair<std::uint64_t, std::uint64_t>{1, 4});
  CHECK(at(4, 2, 2, 2) == std::pair<std::uint64_t, std::uint64_t>{4, 1});
  CHECK(at(4, 4, 2, 2) == std::pair<std::uint64_t, std::uint64_t>{1, 1});  // a 2-bit operand fills a 4-bit brick
  CHECK(at(4, 4, 8, 8) == std::pair<std::uint64_t, std::uint64_t>{1, 4});
}

TEST_CASE("every GEMM tile costs tm·ceil(tn/cols)·ceil(tk/(rows·pf)) and fits half of each buffer") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const unsigned bits[][2] = {{8, 8}, {4, 4}, {2, 2}, {8, 2}, {16, 16}};
  for (const auto& [a, w] : bits) {
    const GemmShape s{3, 200, 100, 300, a, w};
    const GemmTiling t = choose_tiling(s, c);
    const auto tiles = collect(*gemm_tiles(s, t, c));
    const Fusion f = fusion(a, w, c);
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
    const std::uint64_t pf = fusion(bits, bits, c).spatial;
    const GemmTiling t = choose_tiling(fc, c);
    CHECK(t.compute_cycles == 64 * ceil_div(1024, c.cols) * ceil_div(512, c.rows * pf));
  }
}

TEST_CASE("an array side that is no power of two: tiles of its whole columns and rows keep it busy") {
  // 1024 × 4096 × 1024 at 8 bits, compute-bound: the chosen tiling takes the whole-layer count
  // m·ceil(n/cols)·ceil(k/rows), which power-of-two tiles miss by up to 25 % (16 × 40 ran as 16 × 32 did)
  const GemmShape fc{1, 1024, 4096, 1024, 8, 8};
  std::uint64_t cycles_16x32 = 0;
  for (auto [rows, cols] :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{16, 32}, {16, 40}, {24, 24}, {20, 36}}) {
    const AccelConfig c =
        with_overrides(builtin_config("bitfusion-45nm"), {{"array", {{"rows", rows}, {"cols", cols}}}}, "array");
    const GemmTiling t = choose_tiling(fc, c);
    INFO(rows << "×" << cols << ": " << t.describe());
    CHECK(t.compute_cycles == 1024 * ceil_div(4096, cols) * ceil_div(1024, rows));
    if (cols == 32) cycles_16x32 = t.pipeline_cycles;
    if (rows == 16 && cols == 40) CHECK(t.pipeline_cycles < cycles_16x32);  // its 25 % more columns used
  }
  CHECK(tile_sizes(100, 40) == std::vector<std::uint64_t>{1, 2, 4, 8, 16, 32, 40, 64, 80, 100});
  CHECK(tile_sizes(100, 32) == tile_sizes(100));  // a power-of-two side adds none
}

namespace {

/// Every candidate the search may choose from, enumerated here independently of tiling.cpp: each loop order
/// and power-of-two tile size (clipped to its dimension) whose A tile fits half the inputs buffer, B tile
/// half the weights buffer and C tile (at accumulator width) half the outputs buffer.
std::vector<GemmTiling> all_candidates(const GemmShape& s, const AccelConfig& c) {
  const auto sizes = power_of_two_sizes;
  const std::array<char, 3> orders[] = {{'m', 'n', 'k'}, {'m', 'k', 'n'}, {'n', 'm', 'k'},
                                        {'n', 'k', 'm'}, {'k', 'm', 'n'}, {'k', 'n', 'm'}};
  std::vector<GemmTiling> all;
  for (std::uint64_t tm : sizes(s.m))
    for (std::uint64_t tn : sizes(s.n))
      for (std::uint64_t tk : sizes(s.k)) {
        if (tm * tk * s.a_bits > c.buffer(Buffer::inputs).half_bits() ||
            tk * tn * s.w_bits > c.buffer(Buffer::weights).half_bits() ||
            tm * tn * c.accumulator_bits > c.buffer(Buffer::outputs).half_bits())
          continue;
        for (const auto& order : orders) all.push_back(evaluate_tiling(s, tm, tn, tk, order, c));
      }
  return all;
}

/// 36 GEMM shapes, random but seeded: batch 1–8, m, n, k log-uniform in 1–2048, operand bits 2, 4, 8 or 16.
std::vector<GemmShape> sampled_shapes() {
  std::mt19937_64 rng(10);
  auto dim = [&](unsigned max_log2) {
    const std::uint64_t low = std::uint64_t{1} << std::uniform_int_distribution<unsigned>(0, max_log2 - 1)(rng);
    return std::uniform_int_distribution<std::uint64_t>(low, 2 * low)(rng);
  };
  const unsigned bits[] = {2, 4, 8, 16};
  std::vector<GemmShape> shapes;
  for (int i = 0; i < 36; ++i) {
    const unsigned a = bits[std::uniform_int_distribution<int>(0, 3)(rng)];
    const unsigned w = bits[std::uniform_int_distribution<int>(0, 3)(rng)];
    const std::uint64_t batch = dim(3), m = dim(10), n = dim(10), k = dim(10);
    shapes.push_back({batch, m, n, k, a, w});
  }
  return shapes;
}

}  // namespace

TEST_CASE("pipeline_cycles and energy_pj of a tiling equal the closed form over its tiles") {
  const AccelConfig c = builtin_or_slow_dram(GENERATE(false, true));
  std::size_t walked = 0;
  for (const GemmShape& s : sampled_shapes()) {
    for (const GemmTiling& t : all_candidates(s, c)) {
      if (gemm_tiles(s, t, c)->tile_count() > 3000) continue;  // walking stays cheap
      INFO(s.batch << "×" << s.m << "×" << s.n << "×" << s.k << " at " << s.a_bits << "/" << s.w_bits << " bits, "
                   << t.describe());
      const auto [cycles, energy_pj] = walk(gemm_tiles(s, t, c), c);
      CHECK(t.pipeline_cycles == cycles);
      CHECK(t.energy_pj == Approx(energy_pj).epsilon(1e-9));
      CHECK(t.bound_cycles <= t.pipeline_cycles);
      ++walked;
    }
  }
  CHECK(walked > 1000);
}

TEST_CASE("no candidate tiling replays faster than the chosen one beyond the tie window, on sampled GEMMs") {
  const AccelConfig c = builtin_or_slow_dram(GENERATE(false, true));
  for (const GemmShape& s : sampled_shapes()) {
    const GemmTiling best = choose_tiling(s, c);
    INFO(s.batch << "×" << s.m << "×" << s.n << "×" << s.k << " at " << s.a_bits << "/" << s.w_bits << " bits, chose "
                 << best.describe());
    const std::vector<GemmTiling> all = all_candidates(s, c);
    std::uint64_t fastest = ~std::uint64_t{0};
    for (const GemmTiling& t : all) fastest = std::min(fastest, t.pipeline_cycles);
    CHECK(best.pipeline_cycles <= fastest + fastest / kCycleTieDivisor);  // none is more than 0.1 % faster
    for (const GemmTiling& t : all) {
      INFO(t.describe());
      if (t.pipeline_cycles <= fastest + fastest / kCycleTieDivisor)  // ties: none takes less energy
        CHECK(best.energy_pj <= t.energy_pj * (1 + 1e-9));
    }
    // The replay of the op runs the chosen tiling in its pipeline cycles.
    OpRecord op = gemm(s.batch, s.m, s.n, s.k, DType::int8);
    const DType by_bits[] = {DType::int2, DType::int4, DType::int8, DType::int16};
    op.a_dtype = by_bits[std::countr_zero(s.a_bits) - 1], op.b_dtype = by_bits[std::countr_zero(s.w_bits) - 1];
    CHECK(replay_cf({op}, c).total.cycles == best.pipeline_cycles);
  }
}

TEST_CASE("TilingMemo answers as choose_tiling and choose_conv_tiling, for shapes seen again and past its capacity") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  TilingMemo memo(c);
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint64_t i = 1; i <= TilingMemo::kCapacity + 8; ++i) {
      const GemmShape s{1 + i % 3, 8 * i, 64, 16 + i, 8, 8};
      const GemmTiling remembered = memo.choose(s), chosen = choose_tiling(s, c);
      CHECK(remembered.describe() == chosen.describe());
      CHECK(remembered.pipeline_cycles == chosen.pipeline_cycles);
    }
  // convolutions too (a ResNet repeats its blocks' shapes: under the `dram` memory each choice walks candidates)
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint64_t i = 1; i <= TilingMemo::kCapacity + 8; ++i) {
      ConvShape s;
      s.in_channels = 4 + i % 5, s.out_channels = 8, s.in_h = s.in_w = 6 + i % 7, s.kernel_h = s.kernel_w = 3;
      s.padding = 1, s.batch = 1 + i / 40;
      const unsigned bits = i % 2 ? 8 : 4;
      const ConvTiling remembered = memo.choose_conv(s, bits, 8), chosen = choose_conv_tiling(s, bits, 8, c);
      CHECK(remembered.describe() == chosen.describe());
      CHECK(remembered.pipeline_cycles == chosen.pipeline_cycles);
    }
}
