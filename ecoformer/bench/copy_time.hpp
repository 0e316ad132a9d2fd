// The bandwidth bound of the benchmark: the time to copy a number of bytes within device memory
// (cudaMemcpy device to device, CUDA events) or host memory (std::memcpy, steady clock); best of `repeats`.
#pragma once
#include <cstdint>

#include "ecosim/ecoformer/run.hpp"

namespace ecosim::bench {

double copy_time_ms(std::uint64_t bytes, ecoformer::Device device, int repeats);

}  // namespace ecosim::bench
