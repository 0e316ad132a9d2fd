// HeldOutput: a report held whole while small (dropped on error, written on commit), streamed past its bound.
#include <catch2/catch.hpp>
#include <optional>
#include <sstream>

#include "held_output.hpp"

using ecosim::cli::HeldOutput;

TEST_CASE("a small report is held until commit and dropped without it") {
  std::ostringstream target;
  {
    HeldOutput out(target, 64);
    out.stream() << "header\n" << 42 << ',' << 1.5 << '\n';
    CHECK(target.str().empty());
  }  // an error: never committed
  CHECK(target.str().empty());
  HeldOutput out(target, 64);
  out.stream() << "header\n" << 42 << ',' << 1.5 << '\n';
  out.commit();
  CHECK(target.str() == "header\n42,1.5\n");
}

TEST_CASE("past its bound a report streams through, whole and in order") {
  std::ostringstream target;
  std::string expected;
  std::optional<HeldOutput> out(std::in_place, target, 100);
  for (int row = 0; row < 50; ++row) {
    const std::string line = "row " + std::to_string(row) + "\n";
    out->stream() << line;
    expected += line;
    if (expected.size() <= 100) CHECK(target.str().empty());  // still held
  }
  CHECK(target.str() == expected);  // everything past the bound is already out, held text first
  out->stream() << 'x';
  out.reset();  // an error after the bound: what was streamed stays, nothing is duplicated
  CHECK(target.str() == expected + "x");
}
