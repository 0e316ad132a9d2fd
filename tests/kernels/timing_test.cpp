// timing.hpp: quantiles and the summary of hand-made samples, warm-up runs left out of the statistics,
// refused plans and samples, and the GPU plan's warm-up and repetitions.
#include <catch2/catch.hpp>

#include <chrono>
#include <limits>
#include <thread>
#include <vector>

#include "ecosim/kernels/timing.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;

TEST_CASE("timing quantiles interpolate between order statistics", "[timing]") {
  const std::vector<double> four{1, 2, 3, 4};
  CHECK(timing::quantile(four, 0.5) == 2.5);
  CHECK(timing::quantile(four, 0.25) == 1.75);  // position 0.75
  CHECK(timing::quantile(four, 0.75) == 3.25);  // position 2.25
  CHECK(timing::quantile(four, 0.0) == 1);
  CHECK(timing::quantile(four, 1.0) == 4);
  CHECK(timing::quantile({7}, 0.5) == 7);
  CHECK_THROWS_AS(timing::quantile({}, 0.5), Error);
}

TEST_CASE("timing summary of unsorted samples: median, quartiles, min, max", "[timing]") {
  const timing::Stats s = timing::summarize({5, 1, 4, 2, 3}, {2, 5}, timing::kSteadyClock);
  CHECK(s.median_ms == 3);
  CHECK(s.q1_ms == 2);
  CHECK(s.q3_ms == 4);
  CHECK(s.min_ms == 1);
  CHECK(s.max_ms == 5);
  CHECK(s.warmup == 2);
  CHECK(s.repetitions == 5);
  CHECK(s.method == "steady clock");
  const timing::Stats skewed = timing::summarize({10, 1, 1, 1}, {0, 4}, timing::kCudaEvents);
  CHECK(skewed.median_ms == 1);  // one slow outlier moves the mean to 3.25, not the median
  CHECK(skewed.max_ms == 10);
  CHECK(skewed.method == "CUDA events");
}

TEST_CASE("timing summary refuses no samples and negative or non-finite ones", "[timing]") {
  CHECK_THROWS_AS(timing::summarize({}, {}, timing::kSteadyClock), Error);
  CHECK_THROWS_AS(timing::summarize({1, -0.5}, {}, timing::kSteadyClock), Error);
  CHECK_THROWS_AS(timing::summarize({1, std::numeric_limits<double>::quiet_NaN()}, {}, timing::kSteadyClock), Error);
  CHECK_THROWS_AS(timing::summarize({std::numeric_limits<double>::infinity()}, {}, timing::kSteadyClock), Error);
}

TEST_CASE("timing measure runs the warm-up first and leaves it out of the statistics", "[timing]") {
  int calls = 0;
  const timing::Stats s = timing::measure({3, 10}, timing::kSteadyClock, [&] {
    const int call = calls++;
    return call < 3 ? 1000.0 : static_cast<double>(call - 3);  // warm-up runs are slow; then 0, 1, …, 9
  });
  CHECK(calls == 13);
  CHECK(s.repetitions == 10);
  CHECK(s.warmup == 3);
  CHECK(s.min_ms == 0);
  CHECK(s.max_ms == 9);
  CHECK(s.median_ms == 4.5);
  CHECK_THROWS_AS(timing::measure({0, 0}, timing::kSteadyClock, [] { return 1.0; }), Error);
  CHECK_THROWS_AS(timing::measure({-1, 5}, timing::kSteadyClock, [] { return 1.0; }), Error);
}

TEST_CASE("timing plan for reported GPU latencies warms up and repeats at least 10 times", "[timing]") {
  CHECK(timing::kGpuPlan.warmup >= 1);
  CHECK(timing::kGpuPlan.repetitions >= 10);
}

TEST_CASE("timing steady_ms measures at least the time slept", "[timing]") {
  const double ms = timing::steady_ms([] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); });
  CHECK(ms >= 2.0);
}
