// Internal, CPU: what a causal attention keeps between decode steps, one implementation per variant family,
// for every (batch, head) group — MSA its K/V cache, Performer Σφ(k)vᵀ and Σφ(k), the EcoFormer family Σh vᵀ,
// Σh and Σv over its causal codes — each adding a token and reading a query's output with the same arithmetic,
// in the same order, as the causal CPU reference's pass over a prefill (attention_decoder.cpp).
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
  /// Adds the token (its q — the hashed variants' shared q/k —, k and v, head width d each) of group g.
  virtual void add(std::uint64_t g, const float* q, const float* k, const float* v) = 0;
  /// The output (d values) of group g's query q over the state, which already holds q's own token (the last
  /// one added to g).
  virtual void read(std::uint64_t g, const float* q, float* out) const = 0;
  /// The bytes the state holds for all groups (the K/V cache grows with the tokens; a recurrent state does not).
  virtual std::uint64_t bytes() const = 0;
  /// The state's arrays by name, all groups, in double (for tests and reports).
  virtual std::map<std::string, std::vector<double>> arrays() const = 0;
};

/// The state of config.variant (msa, performer or a hashed variant; causal) with its kernel parameters.
std::unique_ptr<DecodeState> make_decode_state(const AttentionConfig& config, const KernelParameters& parameters);

}  // namespace ecosim::ecoformer::detail
