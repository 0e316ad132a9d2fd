// A model's records written by TraceWriter read back identical, header included.
#include <catch2/catch.hpp>
#include <filesystem>

#include "../unique_temp_path.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "ecosim/traces/trace_writer.hpp"

using namespace ecosim;

TEST_CASE("trace round trip keeps every record and the header") {
  const auto path = unique_temp_path("ecosim_roundtrip", ".jsonl").string();
  for (auto variant : {AttentionVariant::msa, AttentionVariant::ecoformer, AttentionVariant::reformer}) {
    ModelOptions o;
    o.attention.variant = variant;
    trace::Header h{1, "test", Convention::exact, {{"model", "pvt_v2_b0"}}};
    RecordingSink expected;
    {
      trace::TraceWriter writer(path, h);
      for (const Layer& l : ModelZoo::builtin().build("pvt_v2_b0", o)) {
        emit(l, Convention::exact, writer);
        emit(l, Convention::exact, expected);
      }
      writer.finish();
    }
    const trace::Trace t = trace::read_file(path);
    CHECK(t.header.producer == "test");
    CHECK(t.header.convention == Convention::exact);
    CHECK(t.header.workload["model"] == "pvt_v2_b0");
    REQUIRE(t.ops.size() == expected.records.size());
    for (std::size_t i = 0; i < t.ops.size(); ++i) CHECK(t.ops[i] == expected.records[i]);
  }
  std::filesystem::remove(path);
}

TEST_CASE("an unfinished writer leaves no file behind") {
  const auto path = unique_temp_path("ecosim_unfinished", ".jsonl").string();
  std::filesystem::remove(path);
  {
    trace::TraceWriter writer(path, {});
    OpRecord op;
    op.name = "x";
    writer.record(op);
  }
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("a record its readers would refuse is refused by the writer, leaving no file") {
  // an elementwise record of 5000 × 8192 × 28,672 elements in n (Llama-3-70B's SiLU at batch 5000) was written,
  // and count and replay of the trace then refused its line
  const auto path = unique_temp_path("ecosim_too_large", ".jsonl").string();
  std::filesystem::remove(path);
  {
    trace::TraceWriter writer(path, {});
    OpRecord op;
    op.name = "silu";
    op.n = trace::kMaxShape + 1;
    CHECK_THROWS_WITH(writer.record(op),
                      Catch::Contains("record 'silu': n = 1099511627777 is outside") && Catch::Contains("1..2^40"));
    op.n = trace::kMaxShape;  // the largest it reads
    CHECK_NOTHROW(writer.record(op));
  }
  CHECK_FALSE(std::filesystem::exists(path));
}
