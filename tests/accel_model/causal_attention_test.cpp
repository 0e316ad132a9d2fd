// Replay of causal softmax attention (records marked params.causal, their counts the attended pairs only) and of
// attention with fewer queries than keys (a decode step): the fused plan's MACs equal the records'
// multiplications, it visits only the tiles up to each query tile's last attended key, its DRAM traffic (worked
// by hand for both loop orders) moves only those tiles' operands, and SystemC equals the closed form when
// compute-bound.
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/ops_counter/primitives.hpp"

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
    const FusedTiling t = plan_fused_attention(ops, c, tech())->tiling;
    INFO(t.describe());
    const std::vector<OpPlan> plans = plan_all(ops, c);
    REQUIRE(plans.size() == 1);
    CHECK(plans[0].mapping.starts_with("fused causal attention"));
    std::uint64_t macs = 0, dram = 0, triples = 0;
    for (const TileWork& w : collect(plans[0])) {
      macs += w.macs, dram += w.load_total_bits() + w.store_bits;
      triples += w.unit == Unit::vector;  // one softmax tile per (head, query tile, key tile) visited
    }
    // the scores and the context GEMMs: one MAC per attended pair and head-width element each
    const std::uint64_t pairs = heads * attended_pairs(queries, keys, true);
    CHECK(macs == 2 * pairs * d);
    CHECK(macs == ops[0].counts.ops(OpKind::mul) + ops[3].counts.ops(OpKind::mul));
    // the tiles visited: per query tile, its key tiles up to its last row's last attended key
    std::uint64_t visited = 0;
    for (std::uint64_t qi = 0; qi < ceil_div(queries, t.tq); ++qi) {
      const std::uint64_t last_row = std::min(queries, (qi + 1) * t.tq) - 1;
      visited += ceil_div(keys - queries + last_row + 1, t.tk);
    }
    CHECK(triples == heads * visited);
    CHECK(dram == t.dram_bits);
    // DRAM, queries outer: Q and O once; per query tile, K and V up to its last row's last attended key, in
    // whole key tiles (but key tile 0 when the query tile before used it alone: it stays on chip)
    std::uint64_t key_rows = 0, tiles_before = 0;
    for (std::uint64_t qi = 0; qi < ceil_div(queries, t.tq); ++qi) {
      const std::uint64_t last_row = std::min(queries, (qi + 1) * t.tq) - 1;
      const std::uint64_t tiles = ceil_div(keys - queries + last_row + 1, t.tk);
      key_rows += std::min(keys, tiles * t.tk) - (qi > 0 && tiles_before == 1 ? std::min(t.tk, keys) : 0);
      tiles_before = tiles;
    }
    const auto queries_outer = fused_attention_tiles(*s, {FusedOrder::queries_outer, t.tq, t.tk}, {}, c);
    std::uint64_t walked = 0;
    for (const TileWork& w : collect(*queries_outer)) walked += w.load_total_bits() + w.store_bits;
    CHECK(walked == heads * (2 * queries + 2 * key_rows) * d * 8);
    CHECK(walked == fused_dram_bits(*s, FusedOrder::queries_outer, t.tq, t.tk, c));
    // never more than the bidirectional attention of the same shapes
    const std::vector<OpRecord> full = msa_records(heads, queries, keys, d, false);
    CHECK_FALSE(attention_group(full, c)->causal);
    CHECK(replay_cf(ops, c).total.macs <= replay_cf(full, c).total.macs);
  }
}

TEST_CASE("causal fused DRAM bits worked by hand: 300 queries and keys in tiles of 100, both orders") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const std::uint64_t acc = c.accumulator_bits, d = 32, row = d * 8, partial_row = (d + 2) * acc;
  const AttentionShape s{.groups = 2, .queries = 300, .keys = 300, .dim = d, .operand_bits = 8, .causal = true};
  // Query tile 0 sees key tile 0, tile 1 key tiles 0–1, tile 2 all three.
  // Queries outer: Q and O once; K and V rows 100 (tile 0), 100 (tile 1: tile 0 stays from query tile 0, which
  // used it alone), 300 (tile 2: the tile before used two).
  CHECK(fused_dram_bits(s, FusedOrder::queries_outer, 100, 100, c) == 2 * (2 * 300 + 2 * 500) * row);
  // Keys outer: K, V and O once; Q rows 300 (key tile 0: all query tiles), 200 (key tile 1: query tiles 1–2),
  // 0 (key tile 2: query tile 2 alone, on chip since key tile 1's last triple); partial rows stored and loaded
  // back: query tile 1 between key tiles 0 and 1 (100 rows), query tile 2 between 0 and 1 (100; it stays
  // between 1 and 2).
  CHECK(fused_dram_bits(s, FusedOrder::keys_outer, 100, 100, c) == 2 * ((3 * 300 + 500) * row + 2 * 200 * partial_row));
  for (FusedOrder order : {FusedOrder::queries_outer, FusedOrder::keys_outer}) {
    std::uint64_t walked = 0;
    for (const TileWork& w : collect(*fused_attention_tiles(s, {order, 100, 100}, {}, c)))
      walked += w.load_total_bits() + w.store_bits;
    CHECK(walked == fused_dram_bits(s, order, 100, 100, c));
  }
  // 6 of the 9 tiles visited per head; the 3 diagonal ones hold 100·101/2 attended pairs each
  CHECK(collect(*fused_attention_tiles(s, {FusedOrder::keys_outer, 100, 100}, {}, c)).size() == 3 * 2 * 6);
  CHECK(attended_in_tile(s, 100, 100, 100, 100) == 5050);
  CHECK(attended_in_tile(s, 100, 100, 0, 100) == 10000);
  CHECK(attended_in_tile(s, 0, 100, 100, 100) == 0);
}

TEST_CASE("a causal group fuses only when its four records agree, and SystemC equals the closed form") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  std::vector<OpRecord> ops = msa_records(2, 256, 256, 32, true);
  std::vector<OpRecord> mixed = ops;
  mixed[2].params.clear();  // the softmax no longer marked causal: not one causal attention
  CHECK_FALSE(attention_group(mixed, c));
  std::vector<OpRecord> fewer_keys = msa_records(2, 256, 200, 32, false);
  CHECK(attention_group(fewer_keys, c));
  for (OpRecord& r : fewer_keys) r.params[std::string(ops::kCausalParam)] = 1;  // causal: query 0 would see no key
  CHECK_FALSE(attention_group(fewer_keys, c));
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

TEST_CASE("the fused tiling memo returns what the mapper chooses, per shape, causal or not") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  FusedTilingMemo memo(c, tech());
  for (int pass = 0; pass < 2; ++pass)  // the second pass from the memo
    for (bool causal : {false, true}) {
      const std::vector<OpRecord> ops = msa_records(2, 300, 300, 32, causal);
      const AttentionShape s = *attention_group(ops, c);
      OpCounts softmax = ops[1].counts;
      softmax += ops[2].counts;
      const FusedTiling chosen = *choose_fused_tiling(s, softmax, c, tech()), remembered = *memo.choose(s, softmax);
      CHECK(remembered.describe() == chosen.describe());
      CHECK(remembered.dram_bits == chosen.dram_bits);
      CHECK(remembered.energy_pj == chosen.energy_pj);
      CHECK(plan_fused_attention(ops, c, tech(), &memo)->plan.mapping ==
            plan_fused_attention(ops, c, tech())->plan.mapping);
    }
}
