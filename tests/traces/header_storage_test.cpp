// The header's float_storage and alternatives: written only when set, read back equal, and each malformed
// form rejected naming the field (traces/README.md, header).
#include <catch2/catch.hpp>
#include <string>

#include "ecosim/traces/trace.hpp"

#include "trace_test_records.hpp"

using namespace ecosim;

namespace {

/// kHeader with `fields` (",\"key\":value...") added, then `ops` copies of kOp and the end record.
std::string trace_with(const std::string& fields, int ops) {
  std::string text = kHeader.substr(0, kHeader.size() - 1) + fields + "}\n";
  for (int i = 0; i < ops; ++i) text += kOp + "\n";
  return text + R"({"record":"end","ops":)" + std::to_string(ops) + "}\n";
}

}  // namespace

TEST_CASE("a header without float_storage or alternatives: operand storage, one workload, fields not written") {
  const trace::Trace t = trace::parse(trace_with("", 1), "t.jsonl");
  CHECK(t.header.float_storage == trace::FloatStorage::operand);
  CHECK(t.header.alternatives.empty());
  const nlohmann::json j = trace::to_json(t.header);
  CHECK_FALSE(j.contains("float_storage"));
  CHECK_FALSE(j.contains("alternatives"));
}

TEST_CASE("float_storage and alternatives read back as written") {
  trace::Header h;
  h.producer = "t";
  h.float_storage = trace::FloatStorage::recorded;
  h.alternatives = {{"uncompressed", 1}, {"compressed", 2}};
  std::string text = trace::to_json(h).dump() + "\n";
  for (int i = 0; i < 3; ++i) text += kOp + "\n";
  text += R"({"record":"end","ops":3})";
  const trace::Trace t = trace::parse(text, "t.jsonl");
  CHECK(t.header.float_storage == trace::FloatStorage::recorded);
  CHECK(t.header.alternatives == h.alternatives);
}

TEST_CASE("malformed float_storage and alternatives are rejected naming the field") {
  struct Case {
    std::string fields;
    int ops;
    std::string message;
  };
  const std::string two = R"(,"alternatives":[{"name":"a","ops":1},{"name":"b","ops":1}])";
  const Case cases[] = {
      {R"(,"float_storage":"packed")", 1, "field 'float_storage': must be 'operand' or 'recorded'"},
      {R"(,"float_storage":8)", 1, "field 'float_storage': must be a string"},
      {R"(,"alternatives":{"a":1})", 1, "field 'alternatives': must be an array of two or more"},
      {R"(,"alternatives":[{"name":"a","ops":1}])", 1, "field 'alternatives': must be an array of two or more"},
      {R"(,"alternatives":[{"name":"a","ops":1},3])", 2, "field 'alternatives': each must be an object"},
      {R"(,"alternatives":[{"name":"a","ops":1},{"name":"a","ops":1}])", 2, "the name 'a' is given twice"},
      {R"(,"alternatives":[{"name":"","ops":1},{"name":"b","ops":1}])", 2, "a name must not be empty"},
      {R"(,"alternatives":[{"name":"a","ops":0},{"name":"b","ops":2}])", 2, "'a' holds no op records"},
      {R"(,"alternatives":[{"name":"a","ops":1},{"name":"b","ops":1,"x":1}])", 2, "field 'x': unknown field"},
      {R"(,"alternatives":[{"name":"a","ops":-1},{"name":"b","ops":1}])", 2, "must be a non-negative integer"},
      {two, 3, "t.jsonl:5: field 'ops': the header's alternatives hold 2 ops but the trace holds 3"},
      {two, 1, "the header's alternatives hold 2 ops but the trace holds 1"},
  };
  for (const Case& c : cases) {
    const std::string text = trace_with(c.fields, c.ops);
    INFO("trace:\n" << text);
    CHECK_THROWS_WITH(trace::parse(text, "t.jsonl"), Catch::Contains(c.message));
  }
}

TEST_CASE("version 1 has neither float_storage nor alternatives") {
  for (const std::string field : {R"(,"float_storage":"recorded")", R"(,"alternatives":[])"}) {
    std::string text = trace_with(field, 0);
    text.replace(text.find("\"version\":2"), 11, "\"version\":1");
    CHECK_THROWS_WITH(trace::parse(text, "t.jsonl"), Catch::Contains("unknown field (version 1 has none)"));
  }
}
