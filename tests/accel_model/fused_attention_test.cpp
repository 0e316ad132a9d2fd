// Fused (FlashAttention-style) attention on the accelerator: which record groups fuse, that the fused plan
// does the same MACs with the DRAM traffic of its formula, that its tiles fit the buffers, that SystemC
// equals the closed form when compute-bound, and that fusion removes the score matrix's DRAM traffic.
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/fused_attention.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

std::uint64_t dram_bits(const std::vector<OpPlan>& plans) {
  std::uint64_t bits = 0;
  for (const OpPlan& p : plans)
    for (const TileWork& t : collect(p)) bits += t.load_total_bits() + t.store_bits;
  return bits;
}
}  // namespace

TEST_CASE("softmax-attention groups fuse — other records plan as before") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> msa = attention_layer(AttentionVariant::msa, 3, 300, 32);
  const auto shape = attention_group(msa, c);
  REQUIRE(shape);
  CHECK(shape->groups == 3);
  CHECK(shape->queries == 300);
  CHECK(shape->keys == 300);
  CHECK(shape->dim == 32);
  CHECK(shape->operand_bits == 8);

  const std::vector<OpRecord> linformer = attention_layer(AttentionVariant::linformer, 1, 300, 32);
  CHECK_FALSE(attention_group(linformer, c));  // starts with the length projections
  const auto tail = attention_group(std::span(linformer).subspan(2), c);
  REQUIRE(tail);
  CHECK(tail->keys == 256);  // the projected length

  std::vector<OpRecord> broken = msa;
  broken[3].n = 16;  // context width no longer the scores' head width
  CHECK_FALSE(attention_group(broken, c));
  broken = msa;
  broken[2].name = "other.softmax";
  CHECK_FALSE(attention_group(broken, c));

  c.fuse_attention = true;
  CHECK(plan_all(msa, c).size() == 1);
  CHECK(plan_all(linformer, c).size() == 3);
  // Reformer with 300 tokens in chunks of 64 (the last of 44), each attending to itself and the one before:
  // three (queries, keys) shapes — 44×108, 64×108 (after the short chunk), 64×128 — one fused group each.
  const std::vector<OpRecord> reformer = attention_layer(AttentionVariant::reformer, 1, 300, 32);
  std::size_t fused_groups = 0;
  for (const OpPlan& p : plan_all(reformer, c))
    fused_groups += p.name.find("chunk_fused_attention") != std::string::npos;
  CHECK(fused_groups == 3);
  for (AttentionVariant v : {AttentionVariant::ecoformer, AttentionVariant::performer}) {
    const std::vector<OpRecord> ops = attention_layer(v, 1, 300, 32);
    AccelConfig unfused = c;
    unfused.fuse_attention = false;
    const auto fused_plans = plan_all(ops, c), plain = plan_all(ops, unfused);
    REQUIRE(fused_plans.size() == plain.size());
    for (std::size_t i = 0; i < plain.size(); ++i) CHECK(fused_plans[i].mapping == plain[i].mapping);
  }
}

TEST_CASE("the fused plan does the same MACs, fits the buffers and moves Q, O once and K, V per query tile") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  for (std::uint64_t n : {1, 77, 300, 1030}) {
    const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, n, 32);
    const AttentionShape s = *attention_group(ops, c);
    const FusedTiling t = *choose_fused_tiling(s, c);
    INFO("N = " << n << ", tiles " << t.tq << " × " << t.tk);
    CHECK(2 * t.tk * s.dim * s.operand_bits <= c.buffer(Buffer::weights).half_bits());
    CHECK(t.tq * (s.dim + t.tk) * s.operand_bits <= c.buffer(Buffer::inputs).half_bits());
    CHECK(t.tq * (t.tk + s.dim) * c.accumulator_bits <= c.buffer(Buffer::outputs).half_bits());
    const std::vector<OpPlan> plans = plan_all(ops, c);
    REQUIRE(plans.size() == 1);
    std::uint64_t macs = 0;
    for (const TileWork& w : collect(plans[0])) macs += w.macs;
    CHECK(macs == 2 * 2 * n * n * 32);
    const std::uint64_t q_bits = 2 * n * 32 * 8;  // Q (and O) of both groups at 8-bit operands
    CHECK(dram_bits(plans) == 2 * q_bits + ceil_div(n, t.tq) * 2 * q_bits);
    CHECK(dram_bits(plans) == t.dram_bits);
  }
}

TEST_CASE("fusion keeps the score matrix off DRAM and SystemC still equals the closed form when compute-bound") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, 1024, 32);
  const ReplayResult unfused = replay_cf(ops, c);
  c.fuse_attention = true;
  const ReplayResult fused = replay_cf(ops, c);
  // The unfused scores alone are written and read back at least once: 2·N² operands per group.
  CHECK(unfused.total.energy.dram_pj - fused.total.energy.dram_pj >= 2.0 * 2 * 1024 * 1024 * 8 * c.dram_pj_per_bit);
  CHECK(fused.total.energy.total_pj() < unfused.total.energy.total_pj());
  CHECK(fused.total.macs == unfused.total.macs);

  c.dram_bits_per_cycle = 1 << 16;  // wide enough that every tile is compute-bound (checked, not assumed)
  const std::vector<OpPlan> wide = plan_all(ops, c);
  REQUIRE(compute_bound(wide[0], c));
  CHECK(replay_sc(ops, c).total.cycles == replay_cf(ops, c).total.cycles);
}

TEST_CASE("mapping.fuse_attention is a boolean in the configuration file") {
  CHECK(parse_config(R"({"mapping": {"fuse_attention": true}})", "f.json").fuse_attention);
  CHECK_FALSE(builtin_config("bitfusion-45nm").fuse_attention);
  CHECK_THROWS_WITH(parse_config(R"({"mapping": {"fuse_attention": "yes"}})", "f.json"),
                    Catch::Contains("mapping.fuse_attention: must be true or false"));
}
