// The SystemC model's dynamic effects (systemc_*.hpp, pipeline.hpp): the array and the vector unit overlapping
// in fused attention by an amount bounded by hand, the next op's weights prefetched by exactly the cycles the
// DRAM formula gives, the closed form a lower bound throughout, timing independent of the global quantum, and
// two replays in one process independent of each other; the dram memory model replayed through TLM.
#include <catch2/catch.hpp>

#include <sstream>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/pipeline.hpp"
#include "systemc_memory.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

TEST_CASE("fused attention overlaps each softmax with the next scores, saving what the hand bounds allow") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  // The default DRAM, and one eight times as wide, wide enough to hide every transfer of the serial run (checked).
  const bool wide = GENERATE(false, true);
  if (wide) c.dram_bits_per_cycle *= 8;
  INFO("DRAM bits per cycle " << c.dram_bits_per_cycle);
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, 1024, 32);
  const AccelConfig serial_config = static_pipeline(c);
  const std::vector<OpPlan> plans = plan_all(ops, c);
  REQUIRE(plans.size() == 1);
  REQUIRE(compute_bound(plans[0], c) == wide);
  // Tiles in order S₀, then per triple j: Sⱼ₊₁ (when there is one), Pⱼ, context j: the softmax Pⱼ may run
  // beside the scores Sⱼ₊₁ just before it, and only such pairs overlap, so the saving is at most
  // Σ min(Sⱼ₊₁, Pⱼ). A feasible overlapped schedule starts Sⱼ₊₁ when context j − 1 has computed, Pⱼ after
  // the DMA stage that hands it over (σⱼ: the store of context j − 1), and context j after Pⱼ and after the
  // DMA stage that follows Sⱼ₊₁ (δⱼ: store of Sⱼ₊₁, load of context j). Against the serial Pⱼ + Sⱼ₊₁ it
  // saves at least min(Sⱼ₊₁ − σⱼ, Pⱼ − δⱼ, Pⱼ + Sⱼ₊₁ − σⱼ − δⱼ) per pair when the serial run hides every
  // transfer (then it takes l₀ + Σ compute + s_last). Otherwise the serial run takes E more, E = Σ over its stages of
  // (DMA − compute) where positive, and the saving is at most Σ min(Sⱼ₊₁, Pⱼ) + E.
  const std::vector<TileWork> tiles = collect(plans[0]);
  const auto load = [&](std::size_t i) { return dram_cycles(tiles[i].load_total_bits(), c); };
  const auto store = [&](std::size_t i) { return dram_cycles(tiles[i].store_bits, c); };
  std::uint64_t most = 0, least = 0, pairs = 0, excess = 0;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const std::uint64_t dma = (i ? store(i - 1) : 0) + (i + 1 < tiles.size() ? load(i + 1) : 0);
    excess += dma - std::min(dma, tiles[i].compute_cycles);
  }
  for (std::size_t i = 1; i < tiles.size(); ++i) {
    if (!tiles[i].beside_previous) continue;
    REQUIRE(tiles[i].unit == Unit::vector);
    REQUIRE(tiles[i - 1].unit == Unit::array);
    const std::uint64_t scores = tiles[i - 1].compute_cycles, softmax = tiles[i].compute_cycles;
    const std::uint64_t sigma = store(i - 2), delta = store(i - 1) + load(i + 1);
    const auto minus = [](std::uint64_t a, std::uint64_t b) { return a - std::min(a, b); };
    most += std::min(scores, softmax);
    least += std::min({minus(scores, sigma), minus(softmax, delta), minus(scores + softmax, sigma + delta)});
    ++pairs;
  }
  CHECK(pairs + 1 == tiles.size() / 3);  // every softmax but the last
  const ReplayResult serial = replay_sc(ops, serial_config), overlapped = replay_sc(ops, c);
  const std::uint64_t saved = serial.total.cycles - overlapped.total.cycles;
  INFO("serial " << serial.total.cycles << ", overlapped " << overlapped.total.cycles << ", bounds " << least << "…"
                 << most);
  CHECK(saved <= most + excess);
  if (wide) {
    CHECK(excess == 0);
    CHECK(saved >= least);
    CHECK(least * 10 >= serial.total.cycles);  // the bound itself promises at least 10 %
  } else {
    CHECK(saved * 20 >= serial.total.cycles);  // at least 5 % on the default configuration
  }
  CHECK(overlapped.total.cycles == replay_cf(ops, c).total.cycles);  // one op: the closed form runs the same
  CHECK(serial.total.cycles == replay_cf(ops, serial_config).total.cycles);
  CHECK(dynamic_pj(overlapped.total.energy) == Approx(dynamic_pj(serial.total.energy)).epsilon(1e-12));
  CHECK(overlapped.total.energy.leakage_pj < serial.total.energy.leakage_pj);
  CHECK(overlapped.total.array_cycles == serial.total.array_cycles);
  CHECK(overlapped.total.vector_cycles == serial.total.vector_cycles);
}

TEST_CASE("the next op's first weight tile loads during the last tile of the op before") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  // A compute-bound GEMM, then a memory-bound one whose first tile loads weights and inputs.
  const std::vector<OpRecord> ops = {gemm(1, 512, 512, 512, DType::int8), gemm(1, 16, 1024, 1024, DType::int8)};
  struct Rows : RowSink {
    std::vector<OpRow> rows;
    void row(const OpRow& r) override { rows.push_back(r); }
  } with, without;
  const ReplayResult on = replay_sc(ops, c, &with), off = replay_sc(ops, static_pipeline(c), &without);
  const TileWork first = collect(plan_all({ops[1]}, c)[0])[0];
  const std::uint64_t weights = first.load_bits[std::size_t(Buffer::weights)];
  REQUIRE(weights > 0);
  REQUIRE(first.load_total_bits() > weights);
  const std::uint64_t saved =
      dram_cycles(first.load_total_bits(), c) - dram_cycles(first.load_total_bits() - weights, c);
  CHECK(with.rows[0].cycles == without.rows[0].cycles);  // the prefetch fitted in the last tile's compute
  CHECK(with.rows[1].cycles + saved == without.rows[1].cycles);
  CHECK(on.total.cycles + saved == off.total.cycles);
  // Latency 0: the split transfer costs the same bits, rounded up to whole cycles twice instead of once.
  CHECK(on.total.dram_cycles - off.total.dram_cycles <= 1);
  CHECK(with.rows[1].energy.dram_pj == without.rows[1].energy.dram_pj);  // charged to the op it loads for
  CHECK(dynamic_pj(on.total.energy) == Approx(dynamic_pj(off.total.energy)).epsilon(1e-12));
  CHECK(replay_cf(ops, c).total.cycles <= on.total.cycles);  // the closed form assumes every prefetch fits
}

TEST_CASE("SystemC timing does not depend on the global quantum") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::linformer, 2, 512, 32);
  c.quantum_cycles = 1;
  const ReplayResult fine = replay_sc(ops, c);
  c.quantum_cycles = 1'000'000'000;
  const ReplayResult coarse = replay_sc(ops, c);
  CHECK(fine.total.cycles == coarse.total.cycles);
  CHECK(fine.total.dram_cycles == coarse.total.dram_cycles);
  CHECK(fine.total.energy.total_pj() == coarse.total.energy.total_pj());
}

TEST_CASE("two SystemC replays in one process are independent: each builds its own top level") {
  AccelConfig small = builtin_config("bitfusion-45nm");
  small.rows = 8;
  const AccelConfig large = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = {gemm(1, 64, 256, 128, DType::int8), gemm(2, 32, 32, 64, DType::int4)};
  std::ostringstream first_json, again_json;
  TimelineWriter first_timeline(first_json, large), again_timeline(again_json, large);
  const ReplayResult first = replay_sc(ops, large, nullptr, &first_timeline);
  const ReplayResult other = replay_sc(ops, small);
  const ReplayResult again = replay_sc(ops, large, nullptr, &again_timeline);
  first_timeline.finish();
  again_timeline.finish();
  CHECK(other.total.cycles > first.total.cycles);  // half the array: a different machine was simulated
  CHECK(again.total.cycles == first.total.cycles);
  CHECK(again.total.sram_read_bits == first.total.sram_read_bits);  // buffer counters start at 0 again
  CHECK(again_json.str() == first_json.str());                      // and so does simulated time
}

TEST_CASE("under the dram memory model SystemC replays each transfer's row segments: never below the closed form") {
  const AccelConfig simple = builtin_config("bitfusion-45nm");
  const char* device = GENERATE("DDR4-2400", "LPDDR4-3200", "HBM2");
  INFO(device);
  const AccelConfig dram = with_overrides(
      simple, nlohmann::json::parse(std::string(R"({"memory": {"model": "dram", "device": ")") + device + "\"}}"),
      "test");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, 512, 32);
  for (const AccelConfig& c : {dram, static_pipeline(dram)}) {
    const ReplayResult sc = replay_sc(ops, c), bound = replay_cf(ops, c);
    INFO("SystemC " << sc.total.cycles << ", closed form " << bound.total.cycles);
    CHECK(sc.total.cycles >= bound.total.cycles);
    // Row misses and refreshes cost what the peak-rate bound leaves out: the DRAM state shows in the result.
    CHECK(sc.total.cycles > bound.total.cycles);
  }
  // Under `simple` (no DRAM state) and without dynamic effects, the engines agree exactly.
  const AccelConfig serial = static_pipeline(simple);
  CHECK(replay_sc(ops, serial).total.cycles == replay_cf(ops, serial).total.cycles);
}
