// Internal: what a causal attention keeps between decode steps, one implementation per variant family and
// device, for every (batch, head) group — MSA its K/V cache, Performer Σφ(k)vᵀ and Σφ(k), the EcoFormer family
// Σh vᵀ, Σh and Σv over its causal codes. The CPU states (decode_states.cpp) add a token and read a query with
// the same arithmetic, in the same order, as the causal CPU reference's pass over a prefill; the CUDA states keep
// the same sums on the device with the family's CUDA kernels (attention_decoder.cpp drives either).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ecosim/ecoformer/kernel_parameters.hpp"

namespace ecosim::ecoformer::detail {

class DecodeState {
 public:
  virtual ~DecodeState() = default;
  /// Adds the prompt's tokens (seq of them a (batch, head) group, in order) onto the state.
  virtual void add(const AttentionInputs& prompt) = 0;
  /// Adds one new token a group and returns its query's output (seq 1) and the time of that work (CUDA events
  /// around the kernels on the GPU, the steady clock on the CPU; transfers excluded).
  virtual RunResult step(const AttentionInputs& token) = 0;
  /// The bytes the state holds for all groups (the K/V cache grows with the tokens; a recurrent state does not).
  virtual std::uint64_t bytes() const = 0;
  /// The state's arrays by name, all groups, in double (for tests and reports).
  virtual std::map<std::string, std::vector<double>> arrays() const = 0;
};

/// The state of config.variant (msa, performer or a hashed variant; causal) with its kernel parameters, on the
/// CPU or the GPU.
std::unique_ptr<DecodeState> make_decode_state(const AttentionConfig& config, const KernelParameters& parameters,
                                               Device device);

#if ECOSIM_HAS_CUDA
/// The CUDA states, beside each family's CUDA kernels (msa_cuda.cu, performer_cuda.cu, hashed_attention_cuda.cu).
std::unique_ptr<DecodeState> msa_decode_state_cuda(const AttentionConfig& config);
std::unique_ptr<DecodeState> performer_decode_state_cuda(const AttentionConfig& config,
                                                         const KernelParameters& parameters);
std::unique_ptr<DecodeState> hashed_decode_state_cuda(const AttentionConfig& config,
                                                      const KernelParameters& parameters);
#endif

}  // namespace ecosim::ecoformer::detail
