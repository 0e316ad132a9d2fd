// Fair timing, defined once for every benchmark and `ecosim compare`: warm-up runs (not measured), then
// repeated measured runs, summarised by the median and the spread (min, max, quartiles). Each run is timed
// by its caller: CUDA events around its kernels on the GPU (cuda_support.cuh, time_stats), the steady clock
// on the CPU (steady_ms). Plain C++: the statistics are unit-tested without a GPU.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace ecosim::timing {

/// How many runs: `warmup` unmeasured runs first (lazy module loading, first-touch allocation, caches), then
/// `repetitions` measured ones.
struct Plan {
  int warmup = 0;
  int repetitions = 1;
};

/// The plan for GPU latencies that are reported (benchmarks, `compare --device cuda`).
inline constexpr Plan kGpuPlan{3, 10};

/// The names of the two timing methods.
inline constexpr const char* kCudaEvents = "CUDA events";
inline constexpr const char* kSteadyClock = "steady clock";

struct Stats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  double q1_ms = 0, q3_ms = 0;  // quartiles (linear interpolation between order statistics)
  int warmup = 0, repetitions = 0;
  std::string method;  // kCudaEvents or kSteadyClock
};

/// The q-quantile (0 ≤ q ≤ 1) of sorted samples by linear interpolation between the order statistics
/// (position q·(n − 1)); ecosim::Error when `sorted` is empty.
double quantile(const std::vector<double>& sorted, double q);

/// Median, quartiles, min and max of the measured samples; ecosim::Error for no samples or a sample that is
/// negative or not finite.
Stats summarize(std::vector<double> samples_ms, const Plan& plan, std::string method);

/// Runs `once` plan.warmup times, then plan.repetitions times, each call returning the milliseconds it
/// measured, and summarises the measured ones; ecosim::Error for a plan with negative warm-up or no
/// repetitions.
Stats measure(const Plan& plan, std::string method, const std::function<double()>& once);

/// Milliseconds `run` takes by the steady clock.
double steady_ms(const std::function<void()>& run);

}  // namespace ecosim::timing
