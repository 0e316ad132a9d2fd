// The tile pipeline (pipeline.hpp): SystemC equals the closed form exactly on GEMMs of every kind — compute-
// and memory-bound, small and large, batched — at every operand precision, and the physical invariants hold:
// latency at least the MACs at peak rate and the DRAM bits at full bandwidth, never slower with more
// bandwidth or a larger array.
#include <catch2/catch.hpp>

#include <random>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/pipeline.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

struct Shape {
  std::uint64_t batch, m, n, k;
};

/// 24 GEMM shapes (batch, m, n, k): fully connected layers from batch 1 (memory-bound) to large batches
/// (compute-bound), attention-sized and convolution-sized (im2col) products, ragged and degenerate ones.
constexpr Shape kShapes[] = {{1, 16, 4096, 4096}, {1, 1, 1000, 2048}, {1, 64, 1024, 512}, {1, 1024, 64, 256},
                             {1, 4096, 256, 64},  {1, 64, 32, 1024},  {4, 784, 784, 32},  {8, 196, 64, 196},
                             {2, 77, 513, 33},    {3, 200, 100, 300}, {1, 1, 1, 1},       {1, 7, 5, 3},
                             {5, 1, 1, 4096},     {1, 3136, 64, 32},  {1, 512, 512, 512}, {12, 197, 64, 197},
                             {1, 3136, 32, 27},   {1, 256, 3136, 64}, {2, 1000, 1, 1000}, {1, 33, 4097, 129},
                             {64, 49, 49, 32},    {1, 49, 2048, 512}, {16, 1, 768, 768},  {1, 8192, 8, 8}};

/// Operand precisions: integer types as they are, fp32 at each `float_operand_bits`, one mixed pair.
struct Precision {
  DType a, b;
  std::uint64_t float_operand_bits;
};
constexpr Precision kPrecisions[] = {{DType::int8, DType::int8, 8},  {DType::int4, DType::int4, 8},
                                     {DType::int2, DType::int2, 8},  {DType::int16, DType::int16, 8},
                                     {DType::fp32, DType::fp32, 2},  {DType::fp32, DType::fp32, 4},
                                     {DType::fp32, DType::fp32, 16}, {DType::int8, DType::int2, 8}};

OpRecord gemm_at(const Shape& s, const Precision& p) {
  OpRecord op = gemm(s.batch, s.m, s.n, s.k, p.a);
  op.b_dtype = p.b;
  return op;
}

/// Cycles no schedule can beat: every MAC at the array's peak rate for the precision, every DRAM bit at
/// full bandwidth.
std::uint64_t physical_bound(const OpRecord& op, const ReplayResult& r, const AccelConfig& c) {
  const Fusion f = fusion(operand_bits(op.a_dtype, c), operand_bits(op.b_dtype, c), c);
  const std::uint64_t mac_cycles = ceil_div(r.total.macs * f.passes, c.rows * c.cols * f.spatial);
  return std::max(mac_cycles, ceil_div(r.total.dram_bits, c.dram_bits_per_cycle));
}

}  // namespace

TEST_CASE("SystemC equals the closed form on GEMMs of every shape and precision, with physical bounds") {
  // Without the dynamic effects (the pipeline of pipeline.hpp as it stands), and with them: a single GEMM
  // runs on one unit with no op after it, so overlap and prefetch leave it as it is.
  const bool dynamic = GENERATE(false, true);
  AccelConfig c = builtin_config("bitfusion-45nm");
  if (!dynamic) c = static_pipeline(c);
  // The default DRAM, and a narrower one with a per-transfer latency (stores and loads then dominate).
  const bool slow_dram = GENERATE(false, true);
  if (slow_dram) c.dram_bits_per_cycle = 64, c.dram_latency_cycles = 30;
  const Precision p = GENERATE(from_range(std::begin(kPrecisions), std::end(kPrecisions)));
  c.float_operand_bits = p.float_operand_bits;
  std::size_t memory_bound = 0, compute_bound_count = 0;
  for (const Shape& s : kShapes) {
    const OpRecord op = gemm_at(s, p);
    INFO(s.batch << "×" << s.m << "×" << s.n << "×" << s.k << " " << name(p.a) << "×" << name(p.b) << " at float bits "
                 << p.float_operand_bits << ", slow DRAM " << slow_dram << ", overlap and prefetch " << dynamic);
    const ReplayResult sc = replay_sc({op}, c);
    const ReplayResult cf = replay_cf({op}, c);
    CHECK(sc.total.cycles == cf.total.cycles);
    CHECK(sc.total.array_cycles == cf.total.array_cycles);
    CHECK(sc.total.dram_cycles == cf.total.dram_cycles);
    CHECK(sc.total.dram_bits == cf.total.dram_bits);
    CHECK(sc.total.sram_read_bits == cf.total.sram_read_bits);  // SystemC: the buffers' own counters
    CHECK(sc.total.sram_write_bits == cf.total.sram_write_bits);
    // Energy is a sum of the counts above times per-bit and per-cycle energies; the engines add the same
    // terms in a different order (SystemC as the units act), so only rounding may differ.
    CHECK(sc.total.energy.array_pj == cf.total.energy.array_pj);  // charged tile by tile in order by both
    CHECK(sc.total.energy.dram_pj == Approx(cf.total.energy.dram_pj).epsilon(1e-12));
    for (std::size_t b = 0; b < kBufferCount; ++b)
      CHECK(sc.total.energy.sram_pj[b] == Approx(cf.total.energy.sram_pj[b]).epsilon(1e-12));
    CHECK(sc.total.energy.total_pj() == Approx(cf.total.energy.total_pj()).epsilon(1e-12));

    CHECK(sc.total.macs == s.batch * s.m * s.n * s.k);
    const std::uint64_t bound = physical_bound(op, sc, c);
    CHECK(sc.total.cycles >= bound);
    CHECK(sc.total.cycles >= sc.total.dram_cycles);  // one DMA channel
    CHECK(sc.total.cycles >= sc.total.array_cycles);
    (sc.total.dram_cycles > sc.total.array_cycles ? memory_bound : compute_bound_count) += 1;
  }
  // The shapes cover both regimes at every precision (with the slow DRAM nearly all are memory-bound).
  CHECK(memory_bound >= 3);
  if (!slow_dram) CHECK(compute_bound_count >= 3);
}

TEST_CASE("the pipeline formula on hand-made tiles") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.dram_bits_per_cycle = 10, c.dram_latency_cycles = 0;
  auto tile = [](std::uint64_t load_bits, std::uint64_t compute, std::uint64_t store_bits) {
    TileWork t;
    t.load_bits[std::size_t(Buffer::inputs)] = load_bits;
    t.compute_cycles = compute;
    t.store_bits = store_bits;
    return t;
  };
  // l = 3, 4, 2; c = 5, 1, 6; s = 2, 3, 1 cycles:
  //   3 + max(5, 0 + 4) + max(1, 2 + 2) + max(6, 3 + 0) + 1 = 3 + 5 + 4 + 6 + 1 = 19.
  PipelineClock clock(c);
  CHECK(clock.cycles() == 0);
  clock.add(tile(30, 5, 20));
  CHECK(clock.cycles() == 3 + 5 + 2);  // one tile: load, compute, store in sequence
  clock.add(tile(40, 1, 30));
  clock.add(tile(20, 6, 10));
  CHECK(clock.cycles() == 19);
}

// The fastest tiling's cycles can only fall with more bandwidth or a larger array (the candidates are the
// same; each one's cycles fall); the chosen tiling is within the tie window of the fastest, so its cycles may
// rise by at most that window (tiling.hpp).
TEST_CASE("never slower with more DRAM bandwidth or a larger array (beyond the tie window), on sampled GEMMs") {
  std::mt19937_64 rng(20261123);       // fixed seed: the same 40 shapes every run
  auto dim = [&](unsigned max_log2) {  // log-uniform in [1, 2^max_log2], not only powers of two
    const std::uint64_t low = std::uint64_t{1} << std::uniform_int_distribution<unsigned>(0, max_log2 - 1)(rng);
    return std::uniform_int_distribution<std::uint64_t>(low, 2 * low)(rng);
  };
  const std::uint64_t bandwidths[] = {24, 48, 96, 192, 384, 1536};
  const std::uint64_t arrays[][2] = {{8, 16}, {16, 16}, {16, 32}, {32, 32}, {32, 64}, {64, 64}};  // rows, cols
  for (int sample = 0; sample < 40; ++sample) {
    const Shape s{dim(3), dim(11), dim(11), dim(11)};
    const Precision p = kPrecisions[std::uniform_int_distribution<std::size_t>(0, std::size(kPrecisions) - 1)(rng)];
    const OpRecord op = gemm_at(s, p);
    INFO(s.batch << "×" << s.m << "×" << s.n << "×" << s.k << " " << name(p.a) << "×" << name(p.b) << " at float bits "
                 << p.float_operand_bits);
    AccelConfig c = builtin_config("bitfusion-45nm");
    c.float_operand_bits = p.float_operand_bits;
    std::uint64_t previous = ~std::uint64_t{0};
    for (std::uint64_t bits_per_cycle : bandwidths) {
      c.dram_bits_per_cycle = bits_per_cycle;
      const std::uint64_t cycles = replay_cf({op}, c).total.cycles;
      CHECK(cycles <= tie_window_cycles(previous));
      previous = cycles;
    }
    c = builtin_config("bitfusion-45nm");
    c.float_operand_bits = p.float_operand_bits;
    previous = ~std::uint64_t{0};
    for (const auto& [rows, cols] : arrays) {
      c.rows = rows, c.cols = cols;
      const ReplayResult r = replay_cf({op}, c);
      CHECK(r.total.cycles <= tie_window_cycles(previous));
      CHECK(r.total.cycles >= physical_bound(op, r, c));
      previous = r.total.cycles;
    }
  }
}
