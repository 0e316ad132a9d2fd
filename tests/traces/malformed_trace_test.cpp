// The trace reader rejects each kind of malformed trace with a message naming the line and the field.
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ecosim/traces/trace.hpp"

#include "trace_test_records.hpp"

using namespace ecosim;

namespace {

const std::string kEnd1 = R"({"record":"end","ops":1})";

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string with_op(const std::string& op) { return kHeader + "\n" + op + "\n" + kEnd1 + "\n"; }

}  // namespace

TEST_CASE("a well-formed trace parses") {
  const trace::Trace t = trace::parse(with_op(kOp), "ok.jsonl");
  REQUIRE(t.ops.size() == 1);
  CHECK(t.ops[0].counts.ops(OpKind::mul, DType::fp32) == 24);
  CHECK(t.ops[0].k == 4);
}

TEST_CASE("malformed traces are rejected with line and field") {
  struct Case {
    std::string text, message;
  };
  const std::string no_end = kHeader + "\n" + kOp + "\n";
  const Case cases[] = {
      {"", "empty trace"},
      {kOp + "\n" + kEnd1, "t.jsonl:1: field 'record': the first record must be the header"},
      {replace(kHeader, "ecosim-trace", "other") + "\n" + R"({"record":"end","ops":0})", "not an ecosim trace"},
      {replace(kHeader, "\"version\":2", "\"version\":3") + "\n",
       "unsupported trace version 3 (this build reads versions 1 to 2)"},
      {replace(kHeader, "\"version\":2", "\"version\":0") + "\n", "unsupported trace version 0"},
      {replace(kHeader, "\"version\":2", "\"version\":\"2\"") + "\n", "field 'version': must be an integer"},
      {replace(kHeader, "\"producer\":\"t\",", "") + "\n", "field 'producer': missing"},
      {replace(kHeader, "exact", "fuzzy") + "\n", "field 'convention'"},
      {replace(kHeader, "\"workload\":{}", "\"workload\":3") + "\n", "field 'workload': must be an object"},
      {kHeader + "\n{not json\n" + kEnd1, "t.jsonl:2:3: not valid JSON"},
      {kHeader + "\n\n" + kEnd1, "t.jsonl:2: blank line"},
      {kHeader + "\n[1,2]\n", "t.jsonl:2: a record must be a JSON object"},
      {kHeader + "\n" + R"({"record":"comment"})", "unknown record type 'comment'"},
      {kHeader + "\n" + kHeader, "t.jsonl:2: field 'record': a second header"},
      {with_op(replace(replace(kOp, "\"m\":2", "\"m\":1099511627776"), "\"n\":3", "\"n\":1099511627776")),
       "overflows 64 bits"},
      {no_end, "t.jsonl:2: trace is truncated (no end record)"},
      {kHeader + "\n" + kOp + "\n" + R"({"record":"end","ops":2})", "end record counts 2 ops but the trace holds 1"},
      {with_op(kOp) + kOp, "t.jsonl:4: content after the end record"},
  };
  STATIC_REQUIRE(std::size(cases) >= 15);
  for (const auto& c : cases) {
    INFO("trace:\n" << c.text);
    CHECK_THROWS_WITH(trace::parse(c.text, "t.jsonl"), Catch::Contains(c.message));
  }
}

TEST_CASE("an op record with one field spoiled is rejected naming the field") {
  // data/spoiled_op_fields.json: each entry replaces one piece of a valid op record.
  const auto edits = nlohmann::json::parse(std::ifstream(ECOSIM_TRACES_TEST_DATA "/spoiled_op_fields.json"));
  REQUIRE(edits.size() >= 15);
  for (const auto& edit : edits) {
    const std::string text = with_op(replace(kOp, edit["replace"], edit["with"]));
    INFO("trace:\n" << text);
    CHECK_THROWS_WITH(trace::parse(text, "t.jsonl"), Catch::Contains(edit["error"].get<std::string>()));
  }
}

TEST_CASE("unreadable files are errors") {
  CHECK_THROWS_WITH(trace::read_file("/nonexistent/x.jsonl"), Catch::Contains("cannot open '/nonexistent/x.jsonl'"));
  CHECK_THROWS_WITH(trace::read_file("/tmp"), Catch::Contains("is a directory"));
}
