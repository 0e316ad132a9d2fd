// Internal: the errors for bad input, each message written once and thrown by both the CPU references and
// the CUDA kernels (which flag the same first bad element or group, compression_cuda.cuh).
#pragma once
#include <cstdint>
#include <string>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::kernels {

inline Error non_finite_input(const std::string& scheme, std::uint64_t element) {
  return Error(scheme + ": non-finite input (NaN or Inf) at element " + std::to_string(element));
}

/// ActNN: a group's zero point or range does not fit its bf16 metadata.
inline Error actnn_range_overflow(std::uint64_t group) {
  return Error("actnn: the range of group " + std::to_string(group) + " overflows bf16 metadata");
}

/// Mesa: a head's running scale (α, β) is not a finite fp32 value.
inline Error mesa_range_overflow(std::uint64_t head) {
  return Error("mesa: the range of head " + std::to_string(head) + " overflows fp32");
}

}  // namespace ecosim::kernels
