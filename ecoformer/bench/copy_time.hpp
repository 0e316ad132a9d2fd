// The bandwidth bound of the benchmark: the time to copy bytes within device memory (cudaMemcpy device to
// device, CUDA events) or host memory (std::memcpy, steady clock), timed by timing.hpp's plan; and how many
// bytes that copy must move to stand for an attention kernel's unavoidable traffic.
#pragma once
#include <cstdint>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/timing.hpp"

namespace ecosim::bench {

/// The bytes to copy for the bound of an attention kernel on fp32 tensors of `elements` values each. The
/// kernel must at least read Q, K and V and write O: 4·elements·4 bytes of memory traffic. A copy of S bytes
/// reads S and writes S, 2·S of traffic, so the copy that moves the same traffic is S = 2·elements·4 bytes,
/// half the four tensors' size. (Copying all four tensors' bytes moves twice the kernel's traffic: a bound
/// twice too long, and a bound fraction twice too high.)
constexpr std::uint64_t bound_copy_bytes(std::uint64_t elements) { return 2 * elements * sizeof(float); }

timing::Stats copy_time(std::uint64_t bytes, ecoformer::Device device, const timing::Plan& plan);

}  // namespace ecosim::bench
