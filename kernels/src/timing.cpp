// timing.hpp: quantiles, the summary of measured samples, and the warm-up + repetitions loop.
#include "ecosim/kernels/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::timing {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw Error("timing: quantile of no samples");
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

Stats summarize(std::vector<double> samples_ms, const Plan& plan, std::string method) {
  if (samples_ms.empty()) throw Error("timing: no measured runs to summarise");
  for (double s : samples_ms)
    if (!std::isfinite(s) || s < 0) throw Error("timing: a run measured " + std::to_string(s) + " ms");
  std::sort(samples_ms.begin(), samples_ms.end());
  Stats stats;
  stats.median_ms = quantile(samples_ms, 0.5);
  stats.q1_ms = quantile(samples_ms, 0.25);
  stats.q3_ms = quantile(samples_ms, 0.75);
  stats.min_ms = samples_ms.front();
  stats.max_ms = samples_ms.back();
  stats.warmup = plan.warmup;
  stats.repetitions = static_cast<int>(samples_ms.size());
  stats.method = std::move(method);
  return stats;
}

Stats measure(const Plan& plan, std::string method, const std::function<double()>& once) {
  if (plan.warmup < 0 || plan.repetitions < 1)
    throw Error("timing: " + std::to_string(plan.warmup) + " warm-up runs and " + std::to_string(plan.repetitions) +
                " repetitions (need ≥ 0 and ≥ 1)");
  for (int r = 0; r < plan.warmup; ++r) once();
  std::vector<double> samples;
  samples.reserve(static_cast<std::size_t>(plan.repetitions));
  for (int r = 0; r < plan.repetitions; ++r) samples.push_back(once());
  return summarize(std::move(samples), plan, std::move(method));
}

double steady_ms(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ecosim::timing
