// MSA on fp16 inputs: Q, K and V are rounded to IEEE half precision (round to nearest even) and kept so —
// on the GPU they are stored as fp16 and converted to fp32 on load; arithmetic and output are fp32. The
// reported operations equal run_attention's MSA; only the bytes read for Q, K and V are halved.
#pragma once
#include <cstdint>

#include "ecosim/ecoformer/run.hpp"

namespace ecosim::ecoformer {

/// Throws ecosim::Error like run_attention, and when a value's magnitude exceeds fp16's range (65504).
RunResult run_msa_fp16(const AttentionInputs& inputs, const AttentionConfig& config, Device device, OpSink& sink);

/// IEEE binary16 bits of x, rounded to nearest even (overflow → ±∞), and back.
std::uint16_t to_half_bits(float x);
float from_half_bits(std::uint16_t h);

}  // namespace ecosim::ecoformer
