// TraceReader streams: the header on open, records one at a time equal to what the writer was given, the
// end record checked at the end, and a line longer than the bound rejected without reading it whole.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "ecosim/traces/trace_reader.hpp"

#include "trace_test_records.hpp"

using namespace ecosim;

namespace {

/// The trace of a list of records, as TraceWriter writes it.
std::string trace_text(const std::vector<OpRecord>& records) {
  trace::Header header;
  header.producer = "t";
  std::string text = trace::to_json(header).dump() + "\n";
  for (const OpRecord& r : records) text += trace::to_json(r).dump() + "\n";
  return text + R"({"record":"end","ops":)" + std::to_string(records.size()) + "}\n";
}

}  // namespace

TEST_CASE("the reader hands out each record in order, then false at the end record") {
  RecordingSink expected;
  for (const Layer& l : ModelZoo::builtin().build("pvt_v2_b0", {})) emit(l, Convention::exact, expected);
  std::istringstream in(trace_text(expected.records));
  trace::TraceReader reader(in, "pvt.jsonl");
  CHECK(reader.header().producer == "t");
  OpRecord op;
  for (const OpRecord& want : expected.records) {
    REQUIRE(reader.next(op));
    CHECK(op == want);
  }
  CHECK_FALSE(reader.next(op));
  CHECK_FALSE(reader.next(op));  // and stays at the end
}

TEST_CASE("a last line without a newline is read — an error surfaces only when its record is reached") {
  std::istringstream ok(kHeader + "\n" + kOp + "\n" + R"({"record":"end","ops":1})");
  trace::TraceReader reader(ok, "ok");
  OpRecord op;
  CHECK(reader.next(op));
  CHECK_FALSE(reader.next(op));

  std::istringstream bad(kHeader + "\n" + kOp + "\n" + kOp + "\n{oops\n");
  trace::TraceReader streaming(bad, "bad");
  CHECK(streaming.next(op));
  CHECK(streaming.next(op));
  CHECK_THROWS_WITH(streaming.next(op), Catch::StartsWith("bad:4:2: not valid JSON"));
}

TEST_CASE("a line longer than the bound is an error, found without reading the line whole") {
  constexpr std::size_t max = trace::TraceReader::kMaxLineBytes;
  // The op record padded with spaces to exactly the bound is accepted; one byte more is not.
  const std::string longest = kOp + std::string(max - kOp.size(), ' ');
  std::istringstream fits(kHeader + "\n" + longest + "\n" + R"({"record":"end","ops":1})" + "\n");
  trace::TraceReader reader(fits, "fits");
  OpRecord op;
  CHECK(reader.next(op));
  CHECK_FALSE(reader.next(op));

  const std::string too_long = longest + " ";
  const std::string huge = std::string(4 * max, 'x');
  std::istringstream over(kHeader + "\n" + too_long + "\n" + huge + "\n");
  trace::TraceReader rejecting(over, "over");
  CHECK_THROWS_WITH(rejecting.next(op), "over:2: line longer than " + std::to_string(max) + " bytes");
  // The reader stopped within the long line: at most the bound and a byte past it were taken.
  over.clear();
  CHECK(static_cast<std::size_t>(over.tellg()) <= kHeader.size() + 1 + max + 1);
}
