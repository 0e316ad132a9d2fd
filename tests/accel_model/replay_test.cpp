// Replay: SystemC against the closed form, physical bounds (MAC utilisation within the operands' share of the
// array), scaling, DRAM width, and the ranking of the
// attention variants on the default compare workload (batch 16, N = 3136, D = 32; analytic traces).
#include <catch2/catch.hpp>

#include <algorithm>

#include "accel_test_support.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

TEST_CASE("SystemC cycles equal the closed form for compute-bound GEMMs") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  // Shapes whose chosen tilings are compute-bound in every tile (checked below, not assumed).
  const OpRecord shapes[] = {gemm(1, 1024, 64, 256, DType::int8), gemm(1, 1024, 256, 256, DType::int4),
                             gemm(1, 4096, 256, 64, DType::int2), gemm(1, 4096, 32, 64, DType::int16)};
  for (const OpRecord& op : shapes) {
    const std::vector<OpPlan> plans = plan_all({op}, c);
    INFO(plans[0].mapping);
    REQUIRE(compute_bound(plans[0], c));
    const ReplayResult sc = replay_sc({op}, c);
    const ReplayResult cf = replay_cf({op}, c);
    CHECK(sc.total.cycles == cf.total.cycles);
    // Compute-bound: first load + every tile's compute + last store.
    const std::vector<TileWork> tiles = collect(plans[0]);
    std::uint64_t compute = 0;
    for (const auto& t : tiles) compute += t.compute_cycles;
    CHECK(sc.total.cycles ==
          dram_cycles(tiles.front().load_total_bits(), c) + compute + dram_cycles(tiles.back().store_bits, c));
    CHECK(sc.total.array_cycles == compute);
    CHECK(sc.total.energy.total_pj() == Approx(cf.total.energy.total_pj()).epsilon(1e-9));
    CHECK(sc.total.sram_read_bits == cf.total.sram_read_bits);  // counted by the SystemC buffers
    CHECK(sc.total.sram_write_bits == cf.total.sram_write_bits);
  }
}

TEST_CASE("a replay's stall cycles are its ops' summed: one op's overlapping units hide no other op's stalls") {
  ReplayResult result;
  OpRow fused, waiting;
  fused.cycles = 100, fused.array_cycles = 80, fused.vector_cycles = 60;  // overlapped: stalls at least 0
  waiting.cycles = 100, waiting.array_cycles = 50;                        // 50 cycles idle
  result.add(fused);
  result.add(waiting);
  CHECK(fused.stall_cycles() == 0);
  CHECK(waiting.stall_cycles() == 50);
  CHECK(result.total.stall_cycles() == 50);  // from the summed counters: 200 − 190 = 10
}

TEST_CASE("MAC utilisation is at most the share of a fusion unit's bricks the operands' widths take") {
  // BitFusion's unit: 16 2-bit bricks, one 8-bit product a cycle, four 4-bit, sixteen 2-bit
  for (const auto& [bits, most] : {std::pair{DType::int8, 1.0 / 16}, {DType::int4, 4.0 / 16}, {DType::int2, 1.0}}) {
    const AccelConfig c = builtin_config("bitfusion-45nm");
    const ReplayResult r = replay_cf({gemm(1, 1000, 100, 300, bits)}, c);
    INFO(name(bits) << ": " << r.mac_utilisation());
    CHECK(r.peak_macs_per_cycle == c.rows * c.cols * 16);
    CHECK(r.mac_utilisation() > 0);
    CHECK(r.mac_utilisation() <= most);
  }
}

TEST_CASE("doubling the batch doubles compute cycles of a compute-bound GEMM") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const auto one = replay_sc({gemm(1, 1024, 64, 256, DType::int8)}, c);
  const auto two = replay_sc({gemm(2, 1024, 64, 256, DType::int8)}, c);
  CHECK(two.total.array_cycles == 2 * one.total.array_cycles);
  // The second batch element reloads every operand, so the total lies between pure compute and two
  // separate runs.
  CHECK(two.total.cycles >= two.total.array_cycles);
  CHECK(two.total.cycles <= 2 * one.total.cycles);
  CHECK(two.total.macs == 2 * one.total.macs);
}

TEST_CASE(
    "default workload: EcoFormer cheapest, MSA dearest, bounds hold, narrower DRAM never faster, SystemC = closed "
    "form without dynamic effects, between it and the static SystemC with them") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = GENERATE(false, true);
  const bool dynamic = GENERATE(false, true);
  if (!dynamic) c = static_pipeline(c);
  INFO("fused attention: " << c.fuse_attention << ", overlap and prefetch: " << dynamic);
  AccelConfig narrow = c;
  narrow.dram_bits_per_cycle = c.dram_bits_per_cycle / 2;
  const double min_pj_per_mac = c.array_pj_per_cycle / double(c.rows * c.cols * 16);  // 2-bit peak
  struct Cost {
    AttentionVariant v;
    double latency_ms, energy_pj;
  };
  std::vector<Cost> costs;
  for (AttentionVariant v : {AttentionVariant::msa, AttentionVariant::performer, AttentionVariant::linformer,
                             AttentionVariant::reformer, AttentionVariant::ecoformer}) {
    const auto ops = attention_layer(v);
    const ReplayResult r = replay_sc(ops, c);
    const ReplayResult slow = replay_cf(ops, narrow);
    const ReplayResult fast = replay_cf(ops, c);
    INFO(name(v));
    CHECK(r.total.energy.total_pj() >= double(r.total.macs) * min_pj_per_mac);
    CHECK(r.peak_macs_per_cycle == c.rows * c.cols * 16);  // BitFusion: 16 2-bit bricks a unit
    CHECK(r.total.cycles * r.peak_macs_per_cycle >= r.total.macs);
    CHECK((r.mac_utilisation() > 0 && r.mac_utilisation() <= 1));
    CHECK(r.total.macs > 0);
    CHECK(slow.total.cycles >= fast.total.cycles);
    if (!dynamic) {
      CHECK(r.total.cycles == fast.total.cycles);  // SystemC runs the closed form's pipeline
      CHECK(r.total.energy.total_pj() == Approx(fast.total.energy.total_pj()).epsilon(1e-12));
    } else {  // the closed form is a lower bound; overlap and prefetch never slow the static pipeline down
      const ReplayResult without = replay_sc(ops, static_pipeline(c));
      CHECK(fast.total.cycles <= r.total.cycles);
      CHECK(r.total.cycles <= without.total.cycles);
      CHECK(dynamic_pj(r.total.energy) == Approx(dynamic_pj(without.total.energy)).epsilon(1e-12));
      CHECK(dynamic_pj(r.total.energy) == Approx(dynamic_pj(fast.total.energy)).epsilon(1e-12));
    }
    costs.push_back({v, r.latency_ms(), r.total.energy.total_pj()});
  }
  auto by_latency = [](const Cost& a, const Cost& b) { return a.latency_ms < b.latency_ms; };
  auto by_energy = [](const Cost& a, const Cost& b) { return a.energy_pj < b.energy_pj; };
  CHECK(std::min_element(costs.begin(), costs.end(), by_latency)->v == AttentionVariant::ecoformer);
  CHECK(std::min_element(costs.begin(), costs.end(), by_energy)->v == AttentionVariant::ecoformer);
  CHECK(std::max_element(costs.begin(), costs.end(), by_latency)->v == AttentionVariant::msa);
  CHECK(std::max_element(costs.begin(), costs.end(), by_energy)->v == AttentionVariant::msa);
}

TEST_CASE("binary codes × values: on the array at 2 bits or as additions on the vector unit") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  OpRecord op;
  op.name = "context";
  op.kind = OpClass::popcount_accumulate;
  op.batch = 16, op.m = 16, op.n = 32, op.k = 3136;
  op.a_dtype = DType::binary, op.b_dtype = DType::fp32;
  op.counts.add(OpKind::add, DType::fp32, 16ull * 16 * 32 * 3136);
  const ReplayResult on_array = replay_cf({op}, c);
  CHECK(on_array.total.vector_cycles == 0);
  CHECK(on_array.total.macs == 16ull * 16 * 32 * 3136);
  c.binary_codes = BinaryMapping::vector;
  const ReplayResult on_vector = replay_cf({op}, c);
  CHECK(on_vector.total.array_cycles == 0);
  CHECK(on_vector.total.vector_cycles == (16ull * 16 * 32 * 3136 + c.vector_lanes - 1) / c.vector_lanes);
}

TEST_CASE("a replay past the SystemC clock's 2^64 ps (1.8e16 cycles) is refused, not printed saturated") {
  // one fusion unit at 16-bit floats (4 passes a MAC): 100·131072·8192·28672 MACs take 1.2e16 cycles each op
  const AccelConfig one =
      parse_config(R"({"array": {"rows": 1, "cols": 1}, "mapping": {"float_operand_bits": 16}})", "one.json");
  const OpRecord big = gemm(100, 131072, 8192, 28672, DType::fp16);
  CHECK_NOTHROW(replay_sc({big}, one));  // one fits
  CHECK_THROWS_WITH(replay_sc({big, big, gemm(1, 64, 64, 64, DType::fp16)}, one),
                    Catch::Contains("reaches the SystemC clock's limit") && Catch::Contains("--engine closed-form"));
}
