// The largest batch whose training step fits a memory, per scheme: the step's peak at doubling batches until it
// exceeds the memory, then bisection between the last batch that fits and the first that does not.
#include "ecosim/kernels/training_schemes.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::kernels::schemes {

namespace {

constexpr std::uint64_t kMaxSearchedBatch = std::uint64_t{1} << 32;

std::uint64_t peak_at(const Scheme& scheme, const NetworkAt& network, Optimizer optimizer, std::uint64_t batch) {
  const std::vector<Layer> layers = network(batch);
  return apply_scheme(scheme, layers, training_step(layers, optimizer, Convention::exact), batch).peak_bytes;
}

}  // namespace

MaxBatch max_batch(const Scheme& scheme, const NetworkAt& network, Optimizer optimizer, std::uint64_t memory_bytes) {
  const std::uint64_t first = peak_at(scheme, network, optimizer, 1);
  if (first > memory_bytes) return {0, first};
  MaxBatch fits{1, first};
  std::uint64_t too_big = 0;  // 0: none found yet
  while (too_big == 0) {
    if (fits.batch >= kMaxSearchedBatch)
      throw Error("max batch: more than 2^32 samples of the step under " + scheme.name() + " fit the memory");
    const std::uint64_t b = 2 * fits.batch, peak = peak_at(scheme, network, optimizer, b);
    if (peak <= memory_bytes)
      fits = {b, peak};
    else
      too_big = b;
  }
  while (too_big - fits.batch > 1) {
    const std::uint64_t b = fits.batch + (too_big - fits.batch) / 2, peak = peak_at(scheme, network, optimizer, b);
    if (peak <= memory_bytes)
      fits = {b, peak};
    else
      too_big = b;
  }
  return fits;
}

}  // namespace ecosim::kernels::schemes
