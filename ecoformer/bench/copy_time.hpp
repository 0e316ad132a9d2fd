// The bandwidth bound of the benchmark: the time to copy bytes within device memory (cudaMemcpy device to
// device, CUDA events) or host memory (std::memcpy, steady clock), timed by timing.hpp's plan; and how many
// bytes that copy must move to stand for an attention kernel's unavoidable traffic.
#pragma once
#include <cstdint>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/timing.hpp"

namespace ecosim::bench {

/// The bytes to copy for the bound of an attention kernel on tensors of `elements` values each, Q, K and V of
/// `input_bytes` per value and O of `output_bytes` (fp32: 4 and 4; MSA on fp16 inputs: 2 and 4). The kernel must
/// at least read Q, K and V and write O: elements·(3·input_bytes + output_bytes) bytes of memory traffic. A copy
/// of S bytes reads S and writes S, 2·S of traffic, so the copy that moves the same traffic is half that. (Copying
/// all four tensors' bytes moves twice the kernel's traffic: a bound twice too long, a bound fraction twice too
/// high.)
constexpr std::uint64_t bound_copy_bytes(std::uint64_t elements, std::uint64_t input_bytes = sizeof(float),
                                         std::uint64_t output_bytes = sizeof(float)) {
  return elements * (3 * input_bytes + output_bytes) / 2;
}

timing::Stats copy_time(std::uint64_t bytes, ecoformer::Device device, const timing::Plan& plan);

}  // namespace ecosim::bench
