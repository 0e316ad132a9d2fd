// Trace records are strict JSON: a header nested 100,000 levels deep or a record with a duplicate key is an
// error naming the file and line, never a crash or a silently chosen value.
#include <catch2/catch.hpp>
#include <string>

#include "ecosim/traces/trace.hpp"

using namespace ecosim;
using Catch::Matchers::Contains;

TEST_CASE("a deeply nested header fails at its line") {
  std::string workload;
  for (int i = 0; i < 100'000; ++i) workload += "{\"a\":";
  const std::string trace = R"({"record":"header","format":"ecosim-trace","version":1,"producer":"t",)"
                            R"("convention":"exact","workload":)" +
                            workload + "\n";
  CHECK_THROWS_WITH(trace::parse(trace, "t.jsonl"), Contains("t.jsonl:1: JSON nested deeper than 64 levels"));
}

TEST_CASE("a duplicate key in a record fails at its line") {
  const std::string trace =
      R"({"record":"header","format":"ecosim-trace","version":1,"producer":"t","convention":"exact","workload":{}})"
      "\n"
      R"({"record":"end","ops":0,"ops":1})"
      "\n";
  CHECK_THROWS_WITH(trace::parse(trace, "t.jsonl"), Contains("t.jsonl:2: duplicate key 'ops'"));
}
