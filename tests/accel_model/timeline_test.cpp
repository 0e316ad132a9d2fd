// Streamed replay output: rows reach the RowSink op by op and add up to the total; the timeline is valid
// Chrome trace-event JSON with one event per busy interval below its bound, and per-op spans above it whose
// busy cycles and interval counts equal the unmerged events'.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "accel_test_support.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;

namespace {

struct Timeline {
  nlohmann::json json;
  ReplayResult result;
};

Timeline replay_with_timeline(const std::vector<OpRecord>& ops, const AccelConfig& c, std::uint64_t max_events) {
  std::ostringstream out;
  TimelineWriter writer(out, c, max_events);
  Timeline t;
  t.result = replay_sc(ops, c, nullptr, &writer);
  writer.finish();
  t.json = nlohmann::json::parse(out.str());
  CHECK(t.json["otherData"]["events"] == writer.events());
  return t;
}

/// Per track (1 array, 2 vector, 3 DMA load, 4 DMA store): busy cycles and intervals of the "X" events.
struct TrackSums {
  std::map<int, std::uint64_t> busy_cycles, intervals;
  std::size_t events = 0;
};
TrackSums sums(const nlohmann::json& timeline) {
  TrackSums s;
  for (const auto& e : timeline["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++s.events;
    const int track = e["tid"];
    const auto& args = e["args"];
    const bool span = args.contains("intervals");
    s.busy_cycles[track] += args[span ? "busy_cycles" : "cycles"].get<std::uint64_t>();
    s.intervals[track] += span ? args["intervals"].get<std::uint64_t>() : 1;
    if (span) CHECK(e["dur"].get<double>() >= args["busy_cycles"].get<double>() / 500.0 * (1 - 1e-12));
  }
  return s;
}

}  // namespace

TEST_CASE("rows reach the sink as each op finishes and add up to the total") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::ecoformer, 2, 300, 32);
  for (bool systemc : {true, false}) {
    RowList list;
    const ReplayResult r = systemc ? replay_sc(ops, c, &list) : replay_cf(ops, c, &list);
    REQUIRE(list.rows.size() == ops.size());
    std::uint64_t cycles = 0, tiles = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      CHECK(list.rows[i].name == ops[i].name);
      cycles += list.rows[i].cycles, tiles += list.rows[i].tiles;
    }
    CHECK(cycles == r.total.cycles);
    CHECK(tiles == r.total.tiles);
  }
}

TEST_CASE("timeline: one event per busy interval, or per-op spans with the same busy cycles") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const std::vector<OpRecord> ops = attention_layer(AttentionVariant::msa, 2, 300, 32);
  const std::size_t plans = plan_all(ops, c).size();
  const Timeline detailed = replay_with_timeline(ops, c, TimelineWriter::kDefaultMaxEvents);
  CHECK(detailed.json["otherData"]["merged_ops"] == 0);
  const TrackSums d = sums(detailed.json);
  // Busy cycles per unit equal the replay's; every array tile is one event.
  CHECK(d.busy_cycles.at(1) == detailed.result.total.array_cycles);
  CHECK(d.busy_cycles.at(2) == detailed.result.total.vector_cycles);
  CHECK(d.busy_cycles.at(3) + d.busy_cycles.at(4) == detailed.result.total.dram_cycles);
  std::uint64_t array_tiles = 0;
  for (const OpPlan& p : plan_all(ops, c))
    for (const TileWork& t : collect(p)) array_tiles += t.unit == Unit::array && t.compute_cycles;
  CHECK(d.intervals.at(1) == array_tiles);

  // A bound of 100 events: the scores GEMM's 150 tiles do not fit and become spans, the scale's 22 do.
  const Timeline merged = replay_with_timeline(ops, c, 100);
  CHECK(merged.json["otherData"]["merged_ops"].get<std::uint64_t>() >= 1);
  CHECK(merged.json["otherData"]["merged_ops"].get<std::uint64_t>() < plans);
  CHECK(merged.json["otherData"]["max_events"] == 100);
  const TrackSums m = sums(merged.json);
  CHECK(m.events < d.events);
  CHECK(m.busy_cycles == d.busy_cycles);
  CHECK(m.intervals == d.intervals);
  CHECK(merged.result.total.cycles == detailed.result.total.cycles);

  // A bound of 0: every op merged, at most one span per unit and op.
  const Timeline all_merged = replay_with_timeline(ops, c, 0);
  CHECK(all_merged.json["otherData"]["merged_ops"] == plans);
  const TrackSums a = sums(all_merged.json);
  CHECK(a.events <= 4 * plans);
  CHECK(a.busy_cycles == d.busy_cycles);
  CHECK(a.intervals == d.intervals);
}
