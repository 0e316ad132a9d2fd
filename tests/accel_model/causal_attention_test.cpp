// Replay of causal softmax attention (records marked params.causal, their counts the attended pairs only) and of
// attention with fewer queries than keys (a decode step): the fused plan's MACs equal the records'
// multiplications, it visits only the tiles up to each query tile's last attended key, its DRAM traffic (worked
// by hand for both loop orders) moves only those tiles' operands, and SystemC equals the closed form when
// compute-bound.
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/fused_attention.hpp"
#include "ecosim/ops_counter/primitives.hpp"

#include <array>

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

std::vector<OpRecord> msa_records(std::uint64_t heads, std::uint64_t queries, std::uint64_t keys, std::uint64_t d,
                                  bool causal, std::uint64_t window = 0, std::uint64_t kv_heads = 0) {
  AttentionConfig c{.variant = window ? AttentionVariant::sliding : AttentionVariant::msa,
                    .heads = heads,
                    .seq = queries,
                    .head_dim = d,
                    .projections = false,
                    .keys = keys,
                    .causal = causal};
  if (window) c.sliding_window = window;
  c.kv_heads = kv_heads;
  RecordingSink list;
  emit_attention("attention", c, Convention::exact, list);
  return list.records;
}

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

TEST_CASE("fused grouped-query causal attention: each K/V tile serves every query head of its group") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fuse_attention = true;
  const std::uint64_t heads = 8, kv_heads = 2, per_kv = heads / kv_heads, n = 300, d = 32;
  const std::uint64_t acc = c.accumulator_bits, row = d * 8, partial_row = (d + 2) * acc;
  const std::vector<OpRecord> gqa = msa_records(heads, n, n, d, true, 0, kv_heads);
  const std::vector<OpRecord> mha = msa_records(heads, n, n, d, true);
  const AttentionShape s = *attention_group(gqa, c), m = *attention_group(mha, c);
  CHECK(s.groups == kv_heads);  // from the records' params.kv_groups
  CHECK(s.heads == per_kv);
  CHECK(m.groups == heads);
  CHECK(m.heads == 1);
  // Tiles of 400 rows (100 positions × 4 heads) × 100 keys (as the test above, per K/V head): queries outer, the 4
  // heads' Q and O rows once (4 · 300 each), K and V rows 500 once for all four heads — against 500 per query head
  // without sharing.
  CHECK(fused_dram_bits(s, FusedOrder::queries_outer, 400, 100, c) == kv_heads * (2 * per_kv * 300 + 2 * 500) * row);
  CHECK(fused_dram_bits(m, FusedOrder::queries_outer, 100, 100, c) == heads * (2 * 300 + 2 * 500) * row);
  // keys outer: K and V once per K/V head, O once and Q rows 500 per query head, partial rows 2 · 200 per query head
  CHECK(fused_dram_bits(s, FusedOrder::keys_outer, 400, 100, c) ==
        kv_heads * ((2 * 300 + per_kv * (300 + 500)) * row + per_kv * 2 * 200 * partial_row));
  // Rows of one tile may span positions (row r is position r / 4): 6 rows from row 2 are position 0's heads 2–3,
  // position 1's four; over keys 0–2 they attend 2 · 1 + 4 · 2 pairs.
  CHECK(attended_in_tile(s, 2, 6, 0, 3) == 2 * 1 + 4 * 2);
  CHECK(attended_in_tile(s, 2, 9, 0, 3) == 2 * 1 + 4 * 2 + 3 * 3);  // and 3 rows of position 2
  for (FusedOrder order : {FusedOrder::queries_outer, FusedOrder::keys_outer})
    for (auto [tq, tk] : {std::pair<std::uint64_t, std::uint64_t>{400, 100}, {7, 64}, {300, 32}, {30, 300}, {1, 7}}) {
      INFO("order " << int(order) << ", " << tq << " rows × " << tk << " keys");
      std::uint64_t walked = 0, macs = 0;
      for (const TileWork& w : collect(*fused_attention_tiles(s, {order, tq, tk}, {}, c)))
        walked += w.load_total_bits() + w.store_bits, macs += w.macs;
      CHECK(walked == fused_dram_bits(s, order, tq, tk, c));
      CHECK(macs == gqa[0].counts.ops(OpKind::mul) + gqa[3].counts.ops(OpKind::mul));  // every query head's pairs
    }
  // The mapper's tiling fits its rows in the buffers; the plan does the records' MACs and moves less DRAM than the
  // same heads each with their own K and V.
  const FusedTiling t = plan_fused_attention(gqa, c, tech())->tiling;
  INFO(t.describe());
  CHECK(t.tq * (d + t.tk) * 8 <= c.buffer(Buffer::inputs).half_bits());
  CHECK(t.tq * (t.tk + d + 2) * acc <= c.buffer(Buffer::outputs).half_bits());
  const std::vector<OpPlan> plans = plan_all(gqa, c);
  REQUIRE(plans.size() == 1);
  CHECK_THAT(plans[0].mapping, Catch::Contains("rows of 4 query heads sharing a K/V head"));
  const ReplayResult shared = replay_cf(gqa, c), apart = replay_cf(mha, c);
  CHECK(shared.total.macs == apart.total.macs);
  CHECK(shared.total.dram_bits < apart.total.dram_bits);
  // The four records must agree on their K/V heads to be one grouped attention.
  std::vector<OpRecord> mixed = gqa;
  mixed[1].params.erase(std::string(ops::kKvGroupsParam));
  CHECK_FALSE(attention_group(mixed, c));
  c.dram_bits_per_cycle = 1 << 16;  // compute-bound (checked, not assumed): SystemC equals the closed form
  REQUIRE(compute_bound(plan_all(gqa, c)[0], c));
  CHECK(replay_sc(gqa, c).total.cycles == replay_cf(gqa, c).total.cycles);
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
  // unfused, the scores and context GEMMs run in strips that skip the masked tiles (next test)
  c.fuse_attention = false;
  const std::vector<OpPlan> unfused = plan_all(ops, c);
  REQUIRE(unfused.size() == 4);
  CHECK_THAT(unfused[0].mapping, Catch::Contains("strips of"));
  CHECK(replay_cf(ops, c).total.macs < 2 * 2 * 256 * 256 * 32);
  // a causal record outside a recognised group cannot tell its keys' axis: its whole rectangle, said so
  const std::vector<OpRecord> alone = {ops[0]};
  CHECK_THAT(plan_all(alone, c)[0].mapping, Catch::Contains("causal: the whole rectangle computed"));
  CHECK(replay_cf(alone, c).total.macs == 2 * 256 * 256 * 32);
}

TEST_CASE(
    "unfused causal attention: strips of keys over the query rows that attend to them, costed by class, or the "
    "rectangle where faster") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  // (queries, keys, sliding window): square blocks, a decode block of 3 queries over 700 keys, one query over
  // 4096; sliding windows of 1024 and 300 keys over a prefill and of 1024 over a decode block of 3 queries, and
  // of 64 over a prefill of more than 32 windows (strips of the window's keys, not of a 32nd of them)
  for (auto [queries, cache, window] : std::vector<std::array<std::uint64_t, 3>>{{77, 0, 0},
                                                                                 {256, 0, 0},
                                                                                 {1030, 0, 0},
                                                                                 {5000, 0, 0},
                                                                                 {3, 697, 0},
                                                                                 {1, 4095, 0},
                                                                                 {5000, 0, 1024},
                                                                                 {2000, 0, 300},
                                                                                 {3, 5000, 1024},
                                                                                 {20000, 0, 64}}) {
    const std::uint64_t heads = 2, d = 32;
    const std::vector<OpRecord> ops = msa_records(heads, queries, queries + cache, d, true, window);
    const std::uint64_t keys = ops[0].n, offset = keys - queries;  // a window keeps the last W + N − 1 keys
    INFO(queries << " queries over " << keys << " keys, window " << window);
    REQUIRE(ops[0].params.contains(std::string(ops::kWindowParam)) == (window > 0));
    const std::vector<OpPlan> plans = plan_all(ops, c);
    REQUIRE(plans.size() == 4);
    for (std::size_t i : {std::size_t{0}, std::size_t{3}}) {
      const bool scores = i == 0;
      const OpPlan plan = plan_causal_strips(ops[i], c, scores ? CausalKeys::along_n : CausalKeys::along_k);
      INFO(plan.name << ": " << plan.mapping);
      // Scores: strip after strip, its keys follow the last strip's and its rows are those from the first that
      // attends to its first key to the last query. Context: every output element finished once, in the strip
      // holding its row's last key (the other runs store partial sums).
      std::uint64_t key_end = 0, macs = 0, finished = 0, widest = 0;
      for (const auto& run : plan.runs) {
        const std::vector<TensorShape> t = run->tensors();  // A (batch, m, k), B (batch, k, n)
        const std::uint64_t m = t[0].dims[2], width = scores ? t[1].dims[3] : t[0].dims[3];
        macs += heads * m * width * d;
        widest = std::max(widest, width);
        if (scores) {  // the rows from the first whose last key is the strip's first to the last whose first is in it
          const std::uint64_t band = window ? window : keys, first_row = key_end > offset ? key_end - offset : 0;
          const std::uint64_t end_row = std::min(queries, key_end + width + band - 1 - offset);
          CHECK(m == end_row - first_row);
          key_end += width;
        }
        for (const TileWork& tile : collect(*run))
          if (const TensorBox store = run->boxes(tile).store; store.tensor == 3)  // C, not the partial sums
            finished += store.extent[0] * store.extent[1] * store.extent[2] * store.extent[3];
      }
      if (scores) CHECK(key_end == keys);
      CHECK(finished == heads * queries * (scores ? keys : d) - (scores ? heads * queries * keys - macs / d : 0));
      // a window's context: rows starting, going on, finishing in each strip
      CHECK(plan.runs.size() <= 3 * std::max(kMaxCausalStrips, window ? ceil_div(keys, window) : 0));
      const OpRow row = closed_form_row(plan, c);
      CHECK(row.macs == macs);
      // at least the attended pairs' products (the records'), at most the rectangle, all of it for one query
      CHECK(row.macs >= ops[i].counts.ops(OpKind::mul));
      CHECK(row.macs <= heads * queries * keys * d);
      if (queries == 1) CHECK(row.macs == heads * keys * d);
      if (queries >= 1030 && !window) CHECK(row.macs < heads * queries * keys * d * 6 / 10);  // half the rectangle
      if (queries >= 1030 && window) {  // about the band: a strip of w keys computes w + W − 1 rows of them
        CHECK(row.macs * window <= ops[i].counts.ops(OpKind::mul) * (window + widest));
        CHECK(widest <= std::max(ceil_div(keys, kMaxCausalStrips), 2 * window));
      }
      // the strips' seams staged by class as the walk stages them
      CHECK(row.cycles == closed_form_row(plan, c, false, ClosedForm::tile_by_tile).cycles);
      CHECK(closed_form_row(plan, c, true).cycles == closed_form_row(plan, c, true, ClosedForm::tile_by_tile).cycles);
      // the replay's plan: the strips or the whole rectangle masked, never slower than either
      const OpPlan whole = plan_op(ops[i], c, tech());
      const std::uint64_t chosen = closed_form_row(plans[i], c).cycles, rectangle = closed_form_row(whole, c).cycles;
      INFO("chosen: " << plans[i].mapping << " (" << chosen << " cycles; strips " << row.cycles << ", rectangle "
                      << rectangle << ")");
      CHECK(chosen <= tie_window_cycles(std::min(row.cycles, rectangle)));
    }
    // SystemC walks the strips as one pipeline: without its dynamic effects, the closed form's cycles
    CHECK(replay_sc(ops, static_pipeline(c)).total.cycles == replay_cf(ops, static_pipeline(c)).total.cycles);
  }
}

TEST_CASE("unfused causal attention never costs more than full attention of the same shape") {
  // GPT-2's heads (12 of width 64) at 256 and 1,024 tokens, and a windowed block: the masked half skipped or, where
  // skipping costs more (the context's partial sums through DRAM), computed and discarded, never worse than the
  // full attention's plan
  const AccelConfig c = builtin_config("bitfusion-45nm");
  for (auto [tokens, window] : std::vector<std::array<std::uint64_t, 2>>{{256, 0}, {1024, 0}, {1024, 256}}) {
    INFO(tokens << " tokens, window " << window);
    const ReplayResult causal = replay_cf(msa_records(12, tokens, tokens, 64, true, window), c);
    const ReplayResult full = replay_cf(msa_records(12, tokens, tokens, 64, false), c);
    CHECK(causal.total.cycles <= tie_window_cycles(full.total.cycles));
    CHECK(causal.total.energy.total_pj() <= full.total.energy.total_pj());
  }
}

TEST_CASE("unfused causal attention: a larger inputs buffer makes its strips no slower") {
  // GPT-2's heads at lengths whose strips are narrower than the rectangle's key tiles: the strips' tiling is the
  // fastest of the rectangle's and those fitted to a strip's shape, so more room costs no cycles beyond the
  // candidates' granularity (each fitted to one strip alone: 0.28 % at 128 tokens, 8 KB against 4 KB), where the
  // rectangle's alone cost up to 16 % more at 32 KB than at 4 KB
  const AccelConfig base = builtin_config("bitfusion-45nm");
  for (std::uint64_t tokens : {64, 128, 200, 300, 512, 1000, 2048}) {
    const std::vector<OpRecord> ops = msa_records(12, tokens, tokens, 64, true);
    std::uint64_t smaller[2] = {0, 0};
    for (std::uint64_t bytes : {2048, 4096, 8192, 16384, 32768, 131072}) {
      const AccelConfig c =
          with_overrides(base, {{"buffers", {{"inputs", {{"bytes", bytes}}}}}}, "inputs " + std::to_string(bytes));
      for (std::size_t i : {std::size_t{0}, std::size_t{3}}) {
        const OpPlan plan = plan_causal_strips(ops[i], c, i == 0 ? CausalKeys::along_n : CausalKeys::along_k);
        const std::uint64_t cycles = closed_form_row(plan, c).cycles;
        INFO(tokens << " tokens, inputs buffer " << bytes << " B, " << plan.name << ": " << plan.mapping);
        if (smaller[i != 0]) CHECK(double(cycles) <= 1.005 * double(smaller[i != 0]));
        smaller[i != 0] = cycles;
      }
    }
  }
}
