// Kernel timings on the GPU for the benchmarks: quantize+pack, unpack+dequantize and a device-to-device
// copy of the input's bytes, all measured in the same run (timing.hpp: warm-up, then the median and spread of
// the repetitions; CUDA events on the GPU, the steady clock for the benchmark's CPU rows).
#pragma once
#include <cstdint>

#include "ecosim/kernels/timing.hpp"

namespace ecosim::kernels {

struct CudaTiming {
  timing::Stats quantize, dequantize, copy;
  std::uint64_t input_bytes = 0;       // the uncompressed activation
  std::uint64_t compressed_bytes = 0;  // codes + metadata
  std::uint64_t output_bytes = 0;      // what dequantization writes (fp32)
};

}  // namespace ecosim::kernels
