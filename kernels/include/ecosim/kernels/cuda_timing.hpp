// Kernel timings on the GPU for the benchmarks: quantize+pack, unpack+dequantize and a device-to-device
// copy of the input's bytes, all measured in the same run (CUDA events, mean over repetitions).
#pragma once
#include <cstdint>

namespace ecosim::kernels {

struct CudaTiming {
  double quantize_ms = 0, dequantize_ms = 0, copy_ms = 0;
  std::uint64_t input_bytes = 0;       // the uncompressed activation
  std::uint64_t compressed_bytes = 0;  // codes + metadata
  std::uint64_t output_bytes = 0;      // what dequantization writes (fp32)
};

}  // namespace ecosim::kernels
