// ActNN mixed precision: per-sample range weights and the greedy per-sample bit allocator (min-heap of the
// cheapest next step down).
#include <algorithm>
#include <cmath>
#include <queue>
#include <string>

#include "ecosim/kernels/actnn.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "input_type.hpp"

namespace ecosim::kernels::actnn {

namespace {
double inverse_levels_squared(unsigned bits) {
  const double levels = std::ldexp(1.0, static_cast<int>(bits)) - 1.0;
  return 1.0 / (levels * levels);
}
}  // namespace

std::vector<double> range_weights(const TensorView& x, std::uint64_t samples) {
  check_input(x, "actnn");
  check_finite(x, "actnn");
  if (samples == 0 || x.elements % samples != 0)
    throw Error("actnn: " + std::to_string(x.elements) + " elements do not split into " + std::to_string(samples) +
                " equal samples");
  const quant::Input type = input_type(x.dtype);
  const std::uint64_t per_sample = x.elements / samples;
  std::vector<double> weights(samples, 0.0);
  for (std::uint64_t s = 0; s < samples; ++s)
    for (std::uint64_t first = 0; first < per_sample; first += kGroupSize) {
      const std::uint64_t base = s * per_sample + first, count = std::min(kGroupSize, per_sample - first);
      const MinMax m = min_max(x.data, type, base, count);
      const double range = static_cast<double>(m.hi) - m.lo;
      weights[s] += static_cast<double>(count) * range * range / 4.0;
    }
  return weights;
}

std::vector<unsigned> allocate_bits(const std::vector<double>& weights, std::uint64_t budget_bits) {
  const std::uint64_t samples = weights.size();
  if (samples == 0) throw Error("actnn: bit allocation over zero samples");
  if (budget_bits < samples)
    throw Error("actnn: bit budget " + std::to_string(budget_bits) + " is below 1 bit for each of " +
                std::to_string(samples) + " samples");
  for (double w : weights)
    if (!(w >= 0.0) || !std::isfinite(w)) throw Error("actnn: sensitivity weights must be finite and ≥ 0");
  std::vector<unsigned> bits(samples, 8);
  std::uint64_t total = checked_mul(samples, 8);
  // Cost of halving sample s's bits: added weighted variance per bit saved.
  struct Step {
    double cost_per_bit;
    std::uint64_t sample;
    bool operator>(const Step& o) const {
      return cost_per_bit != o.cost_per_bit ? cost_per_bit > o.cost_per_bit : sample > o.sample;
    }
  };
  const auto step_of = [&](std::uint64_t s) {
    const unsigned b = bits[s], lower = b / 2;
    return Step{weights[s] * (inverse_levels_squared(lower) - inverse_levels_squared(b)) / (b - lower), s};
  };
  std::priority_queue<Step, std::vector<Step>, std::greater<>> heap;
  for (std::uint64_t s = 0; s < samples; ++s) heap.push(step_of(s));
  while (total > budget_bits) {
    const Step step = heap.top();
    heap.pop();
    total -= bits[step.sample] / 2;
    bits[step.sample] /= 2;
    if (bits[step.sample] > 1) heap.push(step_of(step.sample));
  }
  return bits;
}

}  // namespace ecosim::kernels::actnn
