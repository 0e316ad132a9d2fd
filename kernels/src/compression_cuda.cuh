// Internal (CUDA sources of the compression kernels): the per-launch flags that kernels raise for bad input,
// thrown with the CPU reference's messages, and warp/block min-max reductions. The GPU support layer they
// build on is ecosim/kernels/cuda_support.cuh.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "ecosim/kernels/cuda_support.cuh"
#include "ecosim/ops_counter/error.hpp"
#include "input_errors.hpp"

namespace ecosim::cuda {

/// First bad element / group a kernel found (UINT64_MAX = none); kernels lower it with atomicMin.
struct Flags {
  unsigned long long bad_element, bad_group;
};
inline constexpr unsigned long long kNone = ~0ull;

inline DeviceBuffer<Flags> make_flags() {
  const Flags none{kNone, kNone};
  return DeviceBuffer<Flags>(&none, 1);
}

/// Throws the CPU reference's error for the flags a launch raised: a non-finite element, or the scheme's own
/// overflow of a group's scale (`group_overflow`: ActNN's bf16 metadata, Mesa's fp32 head scale; nullptr for
/// a scheme whose kernels never raise it).
inline void throw_flags(const DeviceBuffer<Flags>& flags, const char* scheme,
                        Error (*group_overflow)(std::uint64_t) = nullptr) {
  const Flags f = flags.download()[0];
  if (f.bad_element != kNone) throw kernels::non_finite_input(scheme, f.bad_element);
  if (f.bad_group != kNone) {
    if (group_overflow) throw group_overflow(f.bad_group);
    throw Error(std::string(scheme) + ": internal error: group " + std::to_string(f.bad_group) + " flagged");
  }
}

/// Warp-wide min and max (every lane of the warp must call it); all lanes get the result.
__device__ inline void warp_min_max(float& lo, float& hi) {
  for (int offset = 16; offset > 0; offset /= 2) {
    lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, offset));
    hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, offset));
  }
}

/// Block-wide min and max of one value per thread (blockDim.x a multiple of 32, at most 1024).
__device__ inline void block_min_max(float& lo, float& hi) {
  __shared__ float warp_lo[32], warp_hi[32];
  warp_min_max(lo, hi);
  const unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
  if (threadIdx.x % 32 == 0) {
    warp_lo[warp] = lo;
    warp_hi[warp] = hi;
  }
  __syncthreads();
  lo = warp_lo[0];
  hi = warp_hi[0];
  for (unsigned w = 1; w < warps; ++w) {
    lo = fminf(lo, warp_lo[w]);
    hi = fmaxf(hi, warp_hi[w]);
  }
  __syncthreads();  // the shared arrays may be reused by a later call
}

}  // namespace ecosim::cuda
