// `ecosim run --decode-steps T`: the last T tokens decoded one at a time after a causal prefill of the others
// (ecoformer::AttentionDecoder, on the run's device, with the run's parameters), and the report of their time,
// work and state beside the causal run's rows for the same tokens.
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "ecosim/ecoformer/kernel_parameters.hpp"

namespace ecosim::cli {

/// The tokens --decode-steps T leaves to the prompt (N − T), checked before any work: decoding is causal, the
/// prompt keeps a token, and its causal kernel can draw the anchors of an anchor-hashed variant from it.
std::uint64_t decode_prompt(std::uint64_t steps, const AttentionConfig& config);

/// The tokens after the first `prompt` decoded one at a time after a prefill of those: device, prompt_tokens,
/// steps, prefill_ms, step_ms_median, step_muls_mean, step_adds_mean, state_bytes and
/// max_abs_diff_vs_causal_rows (against `causal_out`, the causal run over all the tokens).
nlohmann::json decode_report(const ecoformer::AttentionInputs& inputs, const AttentionConfig& config,
                             const ecoformer::KernelParameters& parameters, const ecoformer::Tensor& causal_out,
                             std::uint64_t prompt, ecoformer::Device device);

}  // namespace ecosim::cli
