// Replay of causal softmax attention (records marked params.causal, their counts the attended pairs only) and of
// attention with fewer queries than keys (a decode step): the fused plan's MACs equal the records'
// multiplications, its DRAM traffic skips the key tiles after each query tile's last attended key, and
// SystemC equals the closed form when compute-bound.
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/fused_attention.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

std::vector<OpRecord> msa_records(std::uint64_t heads, std::uint64_t queries, std::uint64_t keys, std::uint64_t d,
                                  bool causal) {
  AttentionConfig c{.variant = AttentionVariant::msa,
                    .heads = heads,
                    .seq = queries,
                    .head_dim = d,
                    .projections = false,
                    .keys = keys,
                    .causal = causal};
  RecordingSink list;
  emit_attention("attention", c, Convention::exact, list);
  return list.records;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

TEST_CASE("fused causal attention: the records' MACs, key tiles after the diagonal skipped") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  // (queries, keys): square blocks, a decode block of 3 queries over 700 keys, one query over 4096
  for (auto [queries, keys] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {1, 1}, {77, 77}, {300, 300}, {1030, 1030}, {3, 700}, {1, 4096}}) {
    INFO(queries << " queries over " << keys << " keys");
    const std::uint64_t heads = 2, d = 32;
    const std::vector<OpRecord> ops = msa_records(heads, queries, keys, d, true);
    const std::optional<AttentionShape> s = attention_group(ops, c);
    REQUIRE(s);
    CHECK(s->causal);
    CHECK(s->queries == queries);
    CHECK(s->keys == keys);
    const FusedTiling t = *choose_fused_tiling(*s, c);
    const std::vector<OpPlan> plans = plan_all(ops, c);
    REQUIRE(plans.size() == 1);
    CHECK(plans[0].mapping.starts_with("fused causal attention"));
    std::uint64_t macs = 0, dram = 0;
    for (const TileWork& w : collect(plans[0])) macs += w.macs, dram += w.load_total_bits() + w.store_bits;
    // the scores and the context GEMMs: one MAC per attended pair and head-width element each
    const std::uint64_t pairs = heads * attended_pairs(queries, keys, true);
    CHECK(macs == 2 * pairs * d);
    CHECK(macs == ops[0].counts.ops(OpKind::mul) + ops[3].counts.ops(OpKind::mul));
    // DRAM: Q and O once; per query tile, K and V up to its last row's last attended key, in whole key tiles
    std::uint64_t key_rows = 0;
    for (std::uint64_t qi = 0; qi < ceil_div(queries, t.tq); ++qi) {
      const std::uint64_t last_row = std::min(queries, (qi + 1) * t.tq) - 1;
      key_rows += std::min(keys, ceil_div(keys - queries + last_row + 1, t.tk) * t.tk);
    }
    CHECK(dram == heads * (2 * queries + 2 * key_rows) * d * 8);
    CHECK(dram == t.dram_bits);
    // never more than the bidirectional attention of the same shapes
    const std::vector<OpRecord> full = msa_records(heads, queries, keys, d, false);
    CHECK_FALSE(attention_group(full, c)->causal);
    CHECK(replay_cf(ops, c).total.macs <= replay_cf(full, c).total.macs);
  }
}

TEST_CASE("a causal group fuses only when its four records agree, and SystemC equals the closed form") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  std::vector<OpRecord> ops = msa_records(2, 256, 256, 32, true);
  std::vector<OpRecord> mixed = ops;
  mixed[2].params.clear();  // the softmax no longer marked causal: not one causal attention
  CHECK_FALSE(attention_group(mixed, c));
  c.dram_bits_per_cycle = 1 << 16;  // compute-bound (checked, not assumed)
  const std::vector<OpPlan> wide = plan_all(ops, c);
  REQUIRE(compute_bound(wide[0], c));
  CHECK(replay_sc(ops, c).total.cycles == replay_cf(ops, c).total.cycles);
  // unfused, the scores and context GEMMs compute their whole rectangles and say so
  c.fuse_attention = false;
  const std::vector<OpPlan> unfused = plan_all(ops, c);
  REQUIRE(unfused.size() == 4);
  CHECK_THAT(unfused[0].mapping, Catch::Contains("causal: the whole rectangle computed"));
  CHECK(replay_cf(ops, c).total.macs == 2 * 2 * 256 * 256 * 32);
}

TEST_CASE("fused attention of a decode step reads its sizes from the records: 1 query over the keys") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  const std::vector<OpRecord> ops = msa_records(12, 1, 4096, 64, false);
  const AttentionShape s = *attention_group(ops, c);
  CHECK(s.queries == 1);
  CHECK(s.keys == 4096);
  std::uint64_t macs = 0;
  for (const TileWork& w : collect(plan_all(ops, c)[0])) macs += w.macs;
  CHECK(macs == 2 * 12 * 4096 * 64);
}
