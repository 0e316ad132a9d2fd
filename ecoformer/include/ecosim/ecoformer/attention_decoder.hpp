// A causal attention decoded token by token, as a decoder LLM generates: a prefill over the prompt (the causal
// kernel), then one step per new token against what the prefill left — MSA's K/V cache, Performer's running
// Σφ(k)vᵀ and Σφ(k), the EcoFormer family's running Σh vᵀ, Σh and Σv over causal codes (each token hashed alone,
// with statistics fixed by its anchors) — each step's output what the causal kernel gives the same token as the
// last row of a prefill over the prompt and the tokens decoded so far (same parameters). On the CPU (the
// reference) or the GPU (the state on the device, the family's CUDA kernels).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ecosim/ecoformer/kernel_parameters.hpp"

namespace ecosim::ecoformer {

namespace detail {
class DecodeState;
}

/// Tokens [first, first + count) of every (batch, head) group of q, k and v (a prompt, or one decode step's token).
AttentionInputs token_range(const AttentionInputs& in, std::uint64_t first, std::uint64_t count);

class AttentionDecoder {
 public:
  /// Whether the prefill's output is computed (the causal kernel over the prompt), or only the state it leaves
  /// (no quadratic prefill: a benchmark of decode steps at a long context, a generation that needs no prompt
  /// outputs).
  enum class PrefillOutput { computed, skipped };

  /// Prefills `prompt` on `device` with config (variant msa, performer or a hashed one; causal implied; seq = the
  /// prompt's tokens), its parameters drawn from the prompt and the seed as run_attention draws them; the
  /// prefill's work goes to `sink`. Throws ecosim::Error for a variant without a decode state, what run_attention
  /// refuses, or Device::cuda without a usable GPU.
  AttentionDecoder(const AttentionInputs& prompt, const AttentionConfig& config, Device device, std::uint64_t seed,
                   OpSink& sink, PrefillOutput output = PrefillOutput::computed);
  /// The same with the parameters given (checked by check_kernel_parameters), e.g. those of a run over more tokens.
  AttentionDecoder(const AttentionInputs& prompt, const AttentionConfig& config, Device device,
                   KernelParameters parameters, OpSink& sink, PrefillOutput output = PrefillOutput::computed);
  ~AttentionDecoder();
  AttentionDecoder(const AttentionDecoder&) = delete;
  AttentionDecoder& operator=(const AttentionDecoder&) = delete;

  /// The prefill's output and time (an empty output, 0 ms, when skipped).
  const RunResult& prefill() const { return prefill_; }
  /// One new token for every (batch, head) group (q, k, v of seq 1): its output (seq 1) and the step's time (CUDA
  /// events around the kernels on the GPU, the steady clock on the CPU; transfers excluded); the
  /// step's work goes to `sink` as the counter counts a decode step (one query over the tokens so far, the
  /// recurrent variants folding one token into their state).
  RunResult step(const AttentionInputs& token, OpSink& sink);

  /// Tokens in the state: the prompt's and those decoded.
  std::uint64_t tokens() const { return tokens_; }
  const KernelParameters& parameters() const { return parameters_; }
  /// Bytes the state holds (fp32; the hashed code sums as int32): the K/V cache grows with every token, a
  /// recurrent state does not (ecosim::recurrent_state_bytes counts the same).
  std::uint64_t state_bytes() const;
  /// The state's arrays by name, all groups in order, in double: msa "k", "v" [g][tokens][d]; performer "kv"
  /// [g][F][d], "k_sum" [g][F]; hashed "context" [g][b][d], "code_sum" [g][b], "value_sum" [g][d].
  std::map<std::string, std::vector<double>> state() const;

 private:
  AttentionConfig config_;
  KernelParameters parameters_;
  RunResult prefill_;
  std::unique_ptr<detail::DecodeState> state_;
  std::uint64_t tokens_ = 0;
};

}  // namespace ecosim::ecoformer
