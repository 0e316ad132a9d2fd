// A replay's closed-form hint and progress line (sim/src/replay/replay_progress.hpp): the hint from the measured
// per-tile cost and its threshold, durations as a person reads them, and the line on a simulated terminal —
// nothing on a non-terminal, nothing in the first half second, at most four draws a second, the time left from
// the rate so far, erased at the end.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "replay/replay_progress.hpp"
#include "work_limits.hpp"

using namespace ecosim;
using namespace ecosim::cli;

namespace {

/// What a ProgressLine wrote to a temporary file.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c; (c = std::fgetc(file)) != EOF;) text += static_cast<char>(c);
  return text;
}

}  // namespace

TEST_CASE("a SystemC replay is expected to take the measured 0.47 us per tile") {
  CHECK(typical_systemc_seconds(1e6) == Approx(0.47));
  CHECK(typical_systemc_seconds(54525952) == Approx(25.6).epsilon(0.01));  // README: N = 65536 took 25.3 s
}

TEST_CASE("the closed-form hint appears above 10 s of expected SystemC time, naming the time and the option") {
  const double tiles_at_threshold = kHintSeconds / typical_systemc_seconds(1);
  const auto below = static_cast<std::uint64_t>(tiles_at_threshold * 0.99);
  CHECK(closed_form_hint({3, below, below}).empty());
  const auto above = static_cast<std::uint64_t>(tiles_at_threshold * 13.7);  // 137 s
  const std::string hint = closed_form_hint({170, above, above});
  CHECK_THAT(hint, Catch::Contains("--engine closed-form"));
  CHECK_THAT(hint, Catch::Contains("in 170 ops: about 2 min 17 s at 0.47 µs a tile walked"));
  CHECK_THAT(hint, !Catch::Contains("fast-forwarded"));
  // The time is that of the tiles walked: many fast-forwarded tiles cost nothing of it.
  CHECK(closed_form_hint({3, above * 1000, below}).empty());
  CHECK_THAT(closed_form_hint({3, above * 1000, above}),
             Catch::Contains("walked one by one, the rest fast-forwarded) in 3 ops: about 2 min 17 s"));
}

TEST_CASE("durations read as seconds, minutes and seconds, or hours and minutes") {
  CHECK(format_duration(0.2) == "0 s");
  CHECK(format_duration(44.6) == "45 s");
  CHECK(format_duration(137) == "2 min 17 s");
  CHECK(format_duration(3600 + 3 * 60 + 20) == "1 h 03 min");
  CHECK(format_duration(-1) == "0 s");
}

TEST_CASE("the progress line is drawn on a terminal only, rate-limited, with the time left, and erased") {
  double now = 100;  // seconds of a simulated clock
  const accel::ReplayWork total{10, 800, 800};
  std::FILE* file = std::tmpfile();
  REQUIRE(file);

  SECTION("not a terminal: nothing is written, whatever the time") {
    {
      ProgressLine line(file, false, "[msa]", total, [&] { return now; });
      for (int i = 1; i <= 10; ++i) {
        now += 1;
        line.update({std::uint64_t(i), std::uint64_t(80 * i)});
      }
    }
    CHECK(contents(file).empty());
  }

  SECTION("a terminal: from half a second on, at most four draws a second, erased at the end") {
    {
      ProgressLine line(file, true, "[msa]", total, [&] { return now; });
      now += 0.4;
      line.update({1, 100, 100});  // before kFirstDrawSeconds: not drawn
      CHECK(contents(file).empty());
      now += 0.6;  // 1 s elapsed, 200 of 800 tiles: 3 s left at this rate
      line.update({2, 200, 200});
      const std::string first = "\r[msa] op 3/10, 200/800 tiles (25 %), 1 s elapsed, ~3 s left\x1b[K";
      CHECK(contents(file) == first);
      now += 0.1;
      line.update({3, 300, 300});  // 0.1 s after the last draw: skipped
      CHECK(contents(file) == first);
      now += 0.9;  // 2 s elapsed, 400 of 800: 2 s left
      line.update({5, 400, 400});
      CHECK(contents(file) == first + "\r[msa] op 6/10, 400/800 tiles (50 %), 2 s elapsed, ~2 s left\x1b[K");
    }
    CHECK_THAT(contents(file), Catch::EndsWith("\x1b[K\r\x1b[K"));  // the destructor erased the line
  }

  SECTION("without a total (a trace read once): ops and tiles done and the time elapsed") {
    ProgressLine line(file, true, "[t.jsonl]", std::nullopt, [&] { return now; });
    now += 1;
    line.update({4, 12'300'000});
    CHECK(contents(file) == "\r[t.jsonl] op 5, 12.3 M tiles, 1 s elapsed\x1b[K");
  }
  std::fclose(file);
}
