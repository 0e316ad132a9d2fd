// Replay progress: plan_work counts the ops and tiles a replay does, and both engines tell the progress
// callback after each op (SystemC also every kProgressTiles tiles within an op), ending at the replay's totals.
#include <catch2/catch.hpp>

#include <vector>

#include "accel_test_support.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

/// The calls a replay of `plans` makes: within op i, one per kProgressTiles tiles started, all walked one by one
/// (`systemc`: SystemC without fast-forward), then one when it finishes.
std::vector<ReplayWork> expected_calls(const std::vector<OpPlan>& plans, bool systemc) {
  std::vector<ReplayWork> calls;
  ReplayWork done;
  for (const OpPlan& plan : plans) {
    const std::uint64_t tiles = plan.tile_count();
    if (systemc)
      for (std::uint64_t k = 1; k * kProgressTiles <= tiles; ++k)
        calls.push_back({done.ops, done.tiles + k * kProgressTiles, done.walked_tiles + k * kProgressTiles});
    done.ops += 1;
    done.tiles += tiles;
    if (systemc) done.walked_tiles += tiles;
    calls.push_back(done);
  }
  return calls;
}

}  // namespace

TEST_CASE("plan_work counts the ops and tiles the replay then does") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, 256, 32);
  RecordList records(ops);
  PlanSource plans(records, Convention::exact, "test records", c, tech());
  const ReplayWork work = plan_work(plans);
  struct Count : RowSink {
    std::uint64_t rows = 0;
    void row(const OpRow&) override { ++rows; }
  } rows;
  const ReplayResult result = replay_cf(ops, c, &rows);
  CHECK(work.ops == rows.rows);
  CHECK(work.tiles == result.total.tiles);
  CHECK(work.walked_tiles < work.tiles);  // fast-forward passes over some
  CHECK(work.ops >= 3);  // scores, softmax, weighted sum at least
}

TEST_CASE("the closed form tells progress once per op, ending at the totals") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, 256, 32);
  std::vector<ReplayWork> calls;
  RecordList records(ops);
  PlanSource plans(records, Convention::exact, "test records", c, tech());
  const ReplayResult result =
      replay_closed_form(plans, c, nullptr, [&](const ReplayWork& done) { calls.push_back(done); });
  CHECK(calls == expected_calls(plan_all(ops, c), false));
  REQUIRE(!calls.empty());
  CHECK(calls.back().tiles == result.total.tiles);
}

TEST_CASE("SystemC tells progress within a long op every kProgressTiles tiles and after each op") {
  AccelConfig c = builtin_config("bitfusion-45nm");
  c.fast_forward = false;  // every tile walked (with it: fast_forward_test.cpp)
  // The compare layer (B = 16, N = 3136): its score and weighted-sum ops have more than kProgressTiles tiles.
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa);
  const std::vector<OpPlan> planned = plan_all(ops, c);
  const std::vector<ReplayWork> expected = expected_calls(planned, true);
  REQUIRE(expected.size() > planned.size());  // some calls fall within an op
  std::vector<ReplayWork> calls;
  RecordList records(ops);
  PlanSource plans(records, Convention::exact, "test records", c, tech());
  const ReplayResult result =
      replay(Engine::systemc, plans, c, nullptr, nullptr, [&](const ReplayWork& done) { calls.push_back(done); });
  CHECK(calls == expected);
  CHECK(calls.back().tiles == result.total.tiles);
}
