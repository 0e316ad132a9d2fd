// Lazy tiles: every generator (GEMM loop nest, streamed vector/DMA tiles, a v1 hash op's converted records,
// fused attention, causal too) yields exactly the tile sequence the former eager code built (the causal fused
// form against a pair-by-pair oracle), and a plan's size does not grow with its tile count.
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"
#include "eager_tiles_reference.hpp"
#include "ecosim/ops_counter/attention_stages.hpp"
#include "ecosim/traces/trace.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

/// The tiles without their places in their runs, which the eager oracle predates (tested in
/// tensor_layout_test.cpp).
std::vector<TileWork> work_of(std::vector<TileWork> tiles) {
  for (TileWork& t : tiles) t.run = nullptr, t.index = {};
  return tiles;
}

std::vector<TileWork> concat(std::vector<TileWork> a, const std::vector<TileWork>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Bits the record's fp32 bytes occupy on the accelerator.
std::uint64_t fp32_bits(std::uint64_t bytes, const AccelConfig& c) {
  return bytes * 8 / bits(DType::fp32) * operand_bits(DType::fp32, c);
}

OpRecord streamed(OpClass kind, std::uint64_t elements) {
  OpRecord op;
  op.name = "x";
  op.kind = kind;
  op.m = elements;
  if (kind != OpClass::memcpy) op.counts.add(OpKind::mul, DType::fp32, elements).add(OpKind::exp, DType::fp32, 3);
  op.counts.add_read_bytes(DType::fp32, 4 * elements).add_written_bytes(DType::fp32, 4 * elements);
  return op;
}

}  // namespace

TEST_CASE("GEMM tiles: the generator equals the eager loop nest for every loop order") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const GemmShape shapes[] = {{3, 200, 100, 300, 8, 8},
                              {1, 1024, 64, 256, 4, 4},
                              {2, 77, 513, 33, 2, 2},
                              {1, 64, 32, 1024, 16, 16},
                              {2, 130, 40, 70, 8, 2}};
  const std::uint64_t sizes[][3] = {{16, 32, 64}, {7, 5, 3}, {128, 64, 16}, {1, 1, 1000}};
  const std::array<char, 3> orders[] = {{'m', 'n', 'k'}, {'m', 'k', 'n'}, {'n', 'm', 'k'},
                                        {'n', 'k', 'm'}, {'k', 'm', 'n'}, {'k', 'n', 'm'}};
  for (const GemmShape& s : shapes) {
    std::vector<GemmTiling> tilings = {choose_tiling(s, c)};
    for (const auto& [tm, tn, tk] : sizes)
      for (const auto& order : orders) tilings.push_back(evaluate_tiling(s, tm, tn, tk, order, c));
    for (const GemmTiling& t : tilings) {
      INFO(s.batch << "×" << s.m << "×" << s.n << "×" << s.k << " at " << s.a_bits << "/" << s.w_bits << " bits, "
                   << t.describe());
      const auto run = gemm_tiles(s, t, c);
      const std::vector<TileWork> expected = eager::gemm_tiles(s, t, c);
      CHECK(run->tile_count() == expected.size());
      CHECK(work_of(collect(*run)) == expected);
      CHECK(work_of(collect(*run)) == expected);  // a second cursor walks the same sequence
    }
  }
}

TEST_CASE("streamed vector and DMA tiles equal the eager tiles") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  for (std::uint64_t elements : {1ull, 1000ull, 65536ull, 1000003ull}) {
    INFO(elements << " elements");
    for (OpClass kind : {OpClass::eltwise, OpClass::reduce, OpClass::memcpy}) {
      const OpRecord op = streamed(kind, elements);
      const bool dma = kind == OpClass::memcpy;
      const std::uint64_t bits = fp32_bits(4 * elements, c);
      const VectorWork work = dma ? VectorWork{} : vector_work(op.counts, c, tech());
      const OpPlan plan = plan_op(op, c, tech());
      const std::uint64_t half = std::min(c.buffer(Buffer::inputs).half_bits(), c.buffer(Buffer::outputs).half_bits());
      const std::uint64_t fewest = std::max<std::uint64_t>(1, (bits + half - 1) / half);
      CHECK(plan.tile_count() >= fewest);           // at least as many tiles as the buffers need
      if (dma) CHECK(plan.tile_count() == fewest);  // a copy gains nothing from more transfers
      CHECK(work_of(collect(plan)) ==
            eager::stream_tiles(dma ? Unit::dma : Unit::vector, bits, bits, work, plan.tile_count()));
    }
  }
}

TEST_CASE("a stream is cut for overlap: larger buffers (16 KiB to 4 MiB) never slow it, nor would other cuts") {
  // 2^20 fp32 elements, an exp each (12 vector cycles): compute-bound; one tile would load, compute and store
  // in turn (40 % slower than overlapped)
  OpRecord op = streamed(OpClass::eltwise, 1 << 20);
  op.counts.add(OpKind::exp, DType::fp32, 1 << 20);
  AccelConfig c = builtin_config("bitfusion-45nm");
  std::uint64_t previous = ~std::uint64_t{0};
  for (std::uint64_t kib : {16, 64, 256, 1024, 4096}) {
    INFO(kib << " KiB buffers");
    c.buffers[std::size_t(Buffer::inputs)].bytes = c.buffers[std::size_t(Buffer::outputs)].bytes = kib * 1024;
    const std::uint64_t cycles = replay_cf({op}, c).total.cycles;
    CHECK(cycles <= previous);
    previous = cycles;
    // no other count of equal tiles that fit is faster, beyond the tie window (the fewest that fit, doubled up to
    // 4,096, are tried)
    const OpPlan plan = plan_op(op, c, tech());
    const VectorWork work = vector_work(op.counts, c, tech());
    const std::uint64_t bits = fp32_bits(4 << 20, c);
    for (std::uint64_t n : {plan.tile_count() / 2, plan.tile_count() * 2, std::uint64_t{1}}) {
      if (n == 0 ||
          (bits + n - 1) / n > std::min(c.buffer(Buffer::inputs).half_bits(), c.buffer(Buffer::outputs).half_bits()))
        continue;
      ClassClock clock(c);
      const std::vector<TileWork> tiles = eager::stream_tiles(Unit::vector, bits, bits, work, n);
      for (std::size_t i = 0; i < tiles.size(); ++i)
        clock.add(i ? &tiles[i - 1] : nullptr, tiles[i], i + 1 < tiles.size() ? &tiles[i + 1] : nullptr, 1);
      CHECK(tie_window_cycles(clock.cycles()) >= cycles);  // fewer tiles win a tie
    }
  }
}

TEST_CASE("a version-1 hash op plans as its converted records: two GEMM runs and one vector stream") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  // 2 groups of 300 tokens, 32 features, 25 anchors, 16 bits: the GEMMs' products plus 77 multiplications,
  // 5 additions and 3 exps left for the vector unit, 1200 bytes read and written.
  const std::uint64_t g = 2, n = 300, d = 32, m = 25, b = 16;
  const std::uint64_t muls = g * n * m * d + g * n * b * m + 77,
                      adds = g * n * m * (2 * d - 1) + g * n * b * (m - 1) + 5;
  const std::string v1 =
      R"({"record":"header","format":"ecosim-trace","version":1,"producer":"t","convention":"exact"})"
      "\n"
      R"({"record":"op","name":"a.hash","kind":"hash","func":"ksh","batch":2,"m":300,"n":16,"k":32,)"
      R"("a_dtype":"fp32","b_dtype":"fp32","params":{"support":25},"ops":{"mul":{"fp32":)" +
      std::to_string(muls) + R"(},"add":{"fp32":)" + std::to_string(adds) +
      R"(},"exp":{"fp32":3}},"bytes_read":{"fp32":1200},"bytes_written":{"fp32":1200}})"
      "\n"
      R"({"record":"end","ops":1})"
      "\n";
  const std::vector<OpRecord> ops = trace::parse(v1, "v1.jsonl").ops;
  REQUIRE(ops.size() == 3);
  OpCounts rest;
  rest.add(OpKind::mul, DType::fp32, 77).add(OpKind::add, DType::fp32, 5).add(OpKind::exp, DType::fp32, 3);
  const GemmShape distances{g, n, m, d, 8, 8}, projection{g, n, b, m, 8, 8};
  const std::vector<OpPlan> plans = plan_all(ops, c);
  REQUIRE(plans.size() == 3);
  const std::vector<TileWork> expected =
      concat(concat(eager::gemm_tiles(distances, choose_tiling(distances, c), c),
                    eager::gemm_tiles(projection, choose_tiling(projection, c), c)),
             eager::stream_tiles(Unit::vector, fp32_bits(1200, c), fp32_bits(1200, c), vector_work(rest, c, tech()),
                                 plans[2].tile_count()));
  std::vector<TileWork> tiles;
  for (const OpPlan& p : plans) tiles = concat(tiles, collect(p));
  CHECK(work_of(tiles) == expected);
}

TEST_CASE("fused attention tiles equal the eager (group, query tile, key tile) triples, causal and grouped too") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  struct Case {
    std::uint64_t queries, keys;
    bool causal;
    std::uint64_t kv_groups = 0;  // of the 4 groups (causal): the K/V heads 2 query heads each share
  };
  std::vector<Case> cases;
  for (std::uint64_t n : {1, 77, 300, 1030}) cases.push_back({n, n, false}), cases.push_back({n, n, true});
  cases.push_back({3, 700, true});  // a decode block: 3 queries over 700 keys
  cases.push_back({200, 333, true});
  cases.push_back({300, 300, true, 2}), cases.push_back({3, 700, true, 2});
  for (const auto [queries, keys, causal, kv_groups] : cases) {
    INFO(queries << " queries over " << keys << " keys" << (causal ? ", causal" : "") << ", K/V groups " << kv_groups);
    std::vector<OpRecord> ops;
    for (const stages::StageRecord& r : stages::softmax_core(4, queries, keys, 32, DType::fp32, causal, 0, kv_groups))
      ops.push_back(r.exact);
    const AttentionShape s = *attention_group(ops, c);
    REQUIRE(s.causal == causal);
    REQUIRE(s.groups * s.heads == 4);
    REQUIRE(s.heads == (kv_groups ? 2 : 1));
    OpCounts records = ops[1].counts;
    records += ops[2].counts;
    // The softmax work: the records' own, plus per query row and key tile its query tile visits after the first
    // (up to the key of its last row's last attended key, causal) one subtraction, one exp and d + 1
    // multiplications.
    const std::uint64_t all_rows = queries * s.heads;  // a position's heads consecutive rows
    auto softmax = [&](std::uint64_t tq, std::uint64_t tk) {
      std::uint64_t updates = 0;
      for (std::uint64_t q0 = 0; q0 < all_rows; q0 += tq) {
        const std::uint64_t rows = std::min(tq, all_rows - q0);
        const std::uint64_t seen = causal ? keys - queries + (q0 + rows - 1) / s.heads + 1 : keys;
        updates += s.groups * rows * ((seen + tk - 1) / tk - 1);
      }
      OpCounts work = records;
      work.add(OpKind::add, DType::fp32, updates).add(OpKind::exp, DType::fp32, updates);
      work.add(OpKind::mul, DType::fp32, updates * (s.dim + 1));
      return vector_work(work, c, tech());
    };
    const FusedPlan plan = *plan_fused_attention(ops, c, tech());
    const std::vector<TileWork> expected =
        eager::fused_tiles(s, plan.tiling, softmax(plan.tiling.tq, plan.tiling.tk), c);
    CHECK(plan.plan.tile_count() == expected.size());
    CHECK(work_of(collect(plan.plan)) == expected);
    // Both orders with tiles of several query and key tiles (edge tiles, partial rows).
    for (FusedOrder order : {FusedOrder::queries_outer, FusedOrder::keys_outer})
      for (auto [tq, tk] :
           {std::pair<std::uint64_t, std::uint64_t>{7, 16}, {64, 5}, {all_rows, 3}, {2, keys}, {1, 4}, {5, 1}}) {
        const FusedTiling t{order, std::min(tq, all_rows), std::min(tk, keys)};
        INFO("order " << int(order) << ", " << t.tq << " × " << t.tk);
        const auto run = fused_attention_tiles(s, t, softmax(t.tq, t.tk), c);
        CHECK(work_of(collect(*run)) == eager::fused_tiles(s, t, softmax(t.tq, t.tk), c));
      }
  }
}

TEST_CASE("a plan of 2^44 tiles is made at once and holds one small run") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  OpRecord op;  // 2^57 fp32 elements scaled in place: 2^59 bytes read and written
  op.name = "huge";
  op.kind = OpClass::eltwise;
  op.batch = std::uint64_t{1} << 29, op.m = std::uint64_t{1} << 28;
  op.counts.add(OpKind::mul, DType::fp32, std::uint64_t{1} << 57);
  op.counts.add_read_bytes(DType::fp32, std::uint64_t{1} << 59).add_written_bytes(DType::fp32, std::uint64_t{1} << 59);
  const OpPlan plan = plan_op(op, c, tech());
  const std::uint64_t bits = fp32_bits(std::uint64_t{1} << 59, c);       // 2^60 at 8-bit operands
  const std::uint64_t half_out = c.buffer(Buffer::outputs).half_bits();  // the smaller half: 2^16 bits
  REQUIRE(plan.runs.size() == 1);
  CHECK(plan.tile_count() == bits / half_out);
  CHECK(plan.tile_count() == std::uint64_t{1} << 44);
  PlanCursor cursor(plan);
  TileWork first;
  REQUIRE(cursor.next(first));
  CHECK(first.load_bits[std::size_t(Buffer::inputs)] == half_out);
  CHECK(first.store_bits == half_out);
}
