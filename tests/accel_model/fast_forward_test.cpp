// The SystemC engine's fast-forward (src/fast_forward.hpp): passing over steady runs of alike tiles gives the
// tile-by-tile walk's rows exactly — cycles, unit and DMA cycles, bits, energy — on sampled ops of every mapping
// (GEMMs of random shapes, decode's matrix-vector products, direct convolutions, vector and DMA streams, fused
// attention with its overlapping tiles), with the dynamic effects on; the cursors' repetitions are the tiles they then make; walked_tiles()
// counts what the engine walks; the timeline has the same intervals; a stateful memory model walks every tile.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <sstream>

#include "accel_test_support.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

AccelConfig with_fast_forward(bool on) {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fast_forward = on;
  return c;
}

/// Replays `ops` with and without fast-forward and checks every row and the totals agree; returns the walked
/// tiles the engine reported and the tiles in all.
ReplayWork check_same_rows(const std::vector<OpRecord>& ops, AccelConfig on) {
  AccelConfig off = on;
  off.fast_forward = false;
  RowList fast, walked;
  std::vector<ReplayWork> calls;
  RecordList records(ops);
  PlanSource plans(records, Convention::exact, "test records", on, tech());
  const ReplayResult a =
      replay_systemc(plans, on, &fast, nullptr, [&](const ReplayWork& done) { calls.push_back(done); });
  REQUIRE(!calls.empty());
  for (std::size_t i = 1; i < calls.size(); ++i) {  // progress only moves forward, walked tiles among the tiles
    CHECK(calls[i].ops >= calls[i - 1].ops);
    CHECK(calls[i].tiles > calls[i - 1].tiles);
    CHECK(calls[i].walked_tiles >= calls[i - 1].walked_tiles);
    CHECK(calls[i].walked_tiles <= calls[i].tiles);
  }
  const ReplayWork reported = calls.back();
  const ReplayResult b = replay_sc(ops, off, &walked);
  REQUIRE(fast.rows.size() == walked.rows.size());
  for (std::size_t i = 0; i < fast.rows.size(); ++i) {
    const OpRow &x = fast.rows[i], &y = walked.rows[i];
    INFO("op " << x.name << " (" << x.mapping << "), " << x.tiles << " tiles");
    CHECK(x.cycles == y.cycles);
    CHECK(x.array_cycles == y.array_cycles);
    CHECK(x.vector_cycles == y.vector_cycles);
    CHECK(x.dram_cycles == y.dram_cycles);
    CHECK(x.tiles == y.tiles);
    CHECK(x.macs == y.macs);
    CHECK(x.dram_bits == y.dram_bits);
    CHECK(x.energy.total_pj() == Approx(y.energy.total_pj()).epsilon(1e-12));
    CHECK(x.energy.dram_pj == Approx(y.energy.dram_pj).epsilon(1e-12));
    CHECK(x.energy.array_pj == Approx(y.energy.array_pj).epsilon(1e-12));
  }
  CHECK(a.total.cycles == b.total.cycles);
  for (std::size_t buffer = 0; buffer < kBufferCount; ++buffer) {
    CHECK(a.total.sram_read_bits[buffer] == b.total.sram_read_bits[buffer]);
    CHECK(a.total.sram_write_bits[buffer] == b.total.sram_write_bits[buffer]);
  }
  CHECK(reported.tiles == a.total.tiles);
  // plan_work's untimed walk passes over what the engine passed over.
  RecordList again(ops);
  PlanSource counted(again, Convention::exact, "test records", on, tech());
  CHECK(plan_work(counted).walked_tiles == reported.walked_tiles);
  return reported;
}

OpRecord vector_op(std::uint64_t elements, OpClass kind) {
  OpRecord op;
  op.name = kind == OpClass::memcpy ? "copy" : "scale";
  op.kind = kind;
  op.counts.add(OpKind::mul, DType::fp16, kind == OpClass::memcpy ? 0 : elements);
  op.counts.add_read_bytes(DType::fp16, 2 * elements).add_written_bytes(DType::fp16, 2 * elements);
  return op;
}

}  // namespace

TEST_CASE("fast-forward gives the walk's rows on sampled GEMMs, decode products and streams") {
  std::mt19937_64 rng(20261127);
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
    return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
  };
  std::vector<OpRecord> ops;
  for (int i = 0; i < 24; ++i) {
    const std::uint64_t m = i % 4 == 0 ? 1 : pick(1, 700), n = pick(1, 900), k = pick(1, 1500);
    ops.push_back(gemm(pick(1, 3), m, n, k, i % 3 == 0 ? DType::fp16 : DType::int8));
  }
  ops.push_back(gemm(1, 1, 4096, 4096, DType::fp16));  // a decode step's projection: weights streamed
  for (std::uint64_t elements :
       {std::uint64_t{1}, std::uint64_t{4095}, std::uint64_t{1} << 20, std::uint64_t{3000017}}) {
    ops.push_back(vector_op(elements, OpClass::eltwise));
    ops.push_back(vector_op(elements, OpClass::memcpy));
  }
  const bool slow = GENERATE(false, true);  // memory-bound stages too
  INFO((slow ? "slow DRAM" : "default DRAM"));
  AccelConfig c = builtin_or_slow_dram(slow);
  c.fast_forward = true;
  const ReplayWork work = check_same_rows(ops, c);
  CHECK(work.walked_tiles * 2 < work.tiles);  // most tiles passed over, even in these small ops
}

TEST_CASE("fast-forward gives the walk's rows on whole models: convolutions, attention, a decoder's phases") {
  // A small Llama-family decoder (grouped-query attention, SwiGLU, RMSNorm) beside two zoo models.
  const ModelZoo zoo = ModelZoo::parse(R"({"tiny_llama": {"extends": "llama3_8b", "hidden_size": 256, "num_heads": 4,
                                          "num_kv_heads": 2, "intermediate_size": 688, "layers": 2, "vocab_size": 1000}})",
                                       "test zoo")
                           .overlaying(ModelZoo::builtin());
  const std::string model = GENERATE(std::string("resnet18"), std::string("pvt_v2_b0"), std::string("tiny_llama"));
  ModelOptions o;
  o.native_attention = model == "pvt_v2_b0";
  if (model == "tiny_llama") {
    o.phase.phase = GENERATE(Phase::prefill, Phase::decode);
    if (o.phase.phase == Phase::prefill)
      o.seq_len = 512;
    else
      o.phase.context = 4096;
  }
  INFO(model);
  RecordingSink sink;
  for (const Layer& layer : zoo.build(model, o)) emit(layer, Convention::exact, sink);
  const ReplayWork work = check_same_rows(sink.records, with_fast_forward(true));
  CHECK(work.walked_tiles < work.tiles);
}

TEST_CASE("fused attention, its softmax tiles beside the scores before them, fast-forwards to the same rows") {
  AccelConfig c = with_fast_forward(true);
  c.fuse_attention = true;
  const bool causal = GENERATE(false, true);
  AttentionConfig a;
  a.batch = 2, a.heads = 1, a.seq = 4000, a.head_dim = 32, a.causal = causal;
  a.projections = false;
  RecordingSink list;
  emit_attention("attention", a, Convention::exact, list);
  const ReplayWork work = check_same_rows(list.records, c);
  CHECK(work.walked_tiles * 2 < work.tiles);  // periods of (scores, softmax, context) blocks passed over
}

TEST_CASE("a cursor's repetition ahead is the tiles it then makes") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  std::vector<OpRecord> ops = {gemm(2, 300, 40, 700, DType::int8), gemm(1, 1, 2048, 512, DType::fp16),
                               gemm(3, 64, 64, 64, DType::int8), vector_op(1 << 18, OpClass::eltwise)};
  ModelOptions o;
  RecordingSink sink;
  for (const Layer& layer : ModelZoo::builtin().build("resnet18", o)) emit(layer, Convention::exact, sink);
  for (const OpRecord& r : sink.records)
    if (r.kind == OpClass::conv && ops.size() < 10) ops.push_back(r);
  std::uint64_t checked = 0;
  for (const OpPlan& plan : plan_all(ops, c)) {
    INFO(plan.name << " (" << plan.mapping << ")");
    const std::vector<TileWork> tiles = collect(plan);
    PlanCursor cursor(plan);
    TileWork t;
    for (std::size_t given = 0; cursor.next(t); ++given) {
      const RepeatAhead ahead = cursor.repeat_ahead(16);
      if (ahead.periods == 0) continue;
      REQUIRE(ahead.period <= 16);
      REQUIRE(given + 1 >= ahead.period);
      REQUIRE(given + ahead.tiles() < tiles.size());
      for (std::uint64_t j = 1; j <= ahead.tiles(); ++j)
        REQUIRE(alike(tiles[given + j], tiles[given + j - ahead.period]));
      ++checked;
    }
    // Skipping lands where walking does.
    PlanCursor skipping(plan);
    std::size_t at = 0;
    while (skipping.next(t)) {
      REQUIRE(at < tiles.size());
      CHECK(t.index == tiles[at].index);
      const RepeatAhead ahead = skipping.repeat_ahead(16);
      if (ahead.periods >= 2) {
        skipping.skip(ahead.period, ahead.periods - 1);
        at += ahead.period * (ahead.periods - 1);
      }
      ++at;
    }
    CHECK(at == tiles.size());
  }
  CHECK(checked > 100);
}

TEST_CASE("the timeline has the same busy intervals with fast-forward as without") {
  const std::vector<OpRecord> ops = {gemm(1, 200, 300, 500, DType::int8), vector_op(1 << 17, OpClass::eltwise)};
  auto intervals = [&](bool on, std::uint64_t max_events) {
    std::ostringstream out;
    const AccelConfig c = with_fast_forward(on);
    TimelineWriter writer(out, c, max_events);
    replay_sc(ops, c, nullptr, &writer);
    writer.finish();
    std::map<int, std::vector<std::pair<double, double>>> by_track;
    std::map<int, std::vector<nlohmann::json>> spans;
    const nlohmann::json timeline = nlohmann::json::parse(out.str());
    for (const auto& e : timeline["traceEvents"]) {
      if (e["ph"] != "X") continue;
      if (e["args"].contains("intervals"))
        spans[e["tid"]].push_back(e);
      else
        by_track[e["tid"]].emplace_back(e["ts"].get<double>(), e["dur"].get<double>());
    }
    for (auto& [track, list] : by_track) std::sort(list.begin(), list.end());
    return std::pair(by_track, spans);
  };
  const auto fast = intervals(true, TimelineWriter::kDefaultMaxEvents),
             walked = intervals(false, TimelineWriter::kDefaultMaxEvents);
  CHECK(fast.first.size() >= 3);
  CHECK(fast.first == walked.first);
  const auto fast_spans = intervals(true, 10), walked_spans = intervals(false, 10);  // every op merged into spans
  CHECK(!fast_spans.second.empty());
  CHECK(fast_spans.second == walked_spans.second);
}

TEST_CASE("a memory model with state, or fast_forward off, walks every tile") {
  const std::vector<OpRecord> ops = {gemm(1, 256, 256, 1024, DType::int8)};
  const AccelConfig dram = parse_config(R"({"memory": {"model": "dram", "device": "DDR4-2400"}})", "test");
  const AccelConfig off = with_fast_forward(false);
  for (const AccelConfig* c : {&dram, &off}) {
    for (const OpPlan& plan : plan_all(ops, *c)) CHECK(walked_tiles(plan, *c) == plan.tile_count());
  }
  const AccelConfig on = builtin_config("bitfusion-45nm");
  REQUIRE(on.fast_forward);
  for (const OpPlan& plan : plan_all(ops, on)) CHECK(walked_tiles(plan, on) * 4 < plan.tile_count());
  CHECK_THROWS_WITH(parse_config(R"({"systemc": {"fast_forward": 1}})", "c.json"), Catch::Contains("fast_forward"));
}
