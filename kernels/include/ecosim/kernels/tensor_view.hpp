// A read-only view of an activation tensor in fp32, fp16 or bf16 (raw bits; fp16/bf16 are converted to fp32
// on load by every kernel), in host memory for the CPU references and the host-side CUDA entry points.
#pragma once
#include <cstdint>
#include <vector>

#include "ecosim/ops_counter/dtype.hpp"

namespace ecosim::kernels {

struct TensorView {
  const void* data = nullptr;
  DType dtype = DType::fp32;  // fp32, fp16 or bf16
  std::uint64_t elements = 0;
};

/// Throws ecosim::Error for an empty tensor, a null pointer or a dtype other than fp32/fp16/bf16.
void check_input(const TensorView& x, const char* scheme);

/// Throws ecosim::Error naming the first NaN/Inf element (the schemes reject non-finite inputs: a code
/// cannot represent them, and silently clamping would hide a diverged activation).
void check_finite(const TensorView& x, const char* scheme);

/// The elements of x converted to fp32 (exact for every supported dtype).
std::vector<float> decode(const TensorView& x);
/// fp32 values as the raw element bytes of dtype t (fp32, fp16 or bf16; round to nearest even).
std::vector<std::uint8_t> encode(const std::vector<float>& values, DType t);

}  // namespace ecosim::kernels
