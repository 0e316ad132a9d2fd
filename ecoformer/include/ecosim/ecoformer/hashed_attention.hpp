// EcoFormer hashed attention and its ablations (fp-, bi-, lsh-, klsh-ecoformer) as one entry point that
// run_attention dispatches to for every hashed variant (is_hashed(config.variant)).
//
// Queries and keys share one projection: inputs.q is the shared q/k tensor and inputs.k is not read (it may
// be empty; if it holds data its shape must equal q's, so a caller's shape mistake is still an error).
// Each token is L2-normalised and hashed to h_i (packed bits, or real values for fp-ecoformer), then
//   out_i = (h_i·Σ_j h_j v_jᵀ + c·Σ_j v_j) / (h_i·Σ_j h_j + c·N),   c > b,
// i.e. Σ_j (h_i·h_j + c) v_j / Σ_j (h_i·h_j + c). The EcoFormer reference code adds c·v_i in the
// numerator instead of c·Σ_j v_j; we follow the mathematics (every similarity h_i·h_j + c > 0 weights v_j).
// Every phase reports its operations, stage by stage in the order run (records "attention.<part>", exact
// convention), equal to emit_attention("attention", config without projections, Convention::exact); they
// reach the sink when the run returns, so that no timed window includes them.
#pragma once
#include <cstdint>

#include "ecosim/ecoformer/hash_params.hpp"
#include "ecosim/ecoformer/packed_codes.hpp"
#include "ecosim/ecoformer/run.hpp"

namespace ecosim::ecoformer {

struct HashedOptions {
  /// c = b + 1 (the smallest integer bias that keeps every h_i·h_j + c positive), or the smallest power of
  /// two above b so hardware can scale by a shift.
  enum class Bias { next_integer, power_of_two } bias = Bias::next_integer;
};

/// The bias c for b-bit codes.
std::int32_t hash_bias(std::uint64_t bits, HashedOptions::Bias bias);

/// The hash of every token: packed codes [batch][heads][seq] for the binary variants; `projections`
/// [batch][heads][seq][bits] holds the values before the sign — the codes themselves for fp-ecoformer,
/// and for the binary variants filled by the CPU reference only (so a CPU/GPU comparison can tell a tie,
/// a projection within rounding of 0, from a wrong bit).
struct TokenHashes {
  PackedCodes codes;
  std::vector<float> projections;
};

struct HashedRun {
  RunResult result;
  HashParams params;
  TokenHashes hashes;  // as computed by the device that ran
  std::int32_t bias = 0;
};

/// Runs one hashed variant; throws ecosim::Error for a variant that is not hashed, mismatched or empty
/// tensors, bits outside 1..64, support > seq, NaN or infinite inputs, sizes whose integer denominators
/// could overflow, or Device::cuda without a usable GPU. latency_ms covers the attention kernels (hashing
/// included), not the parameter preparation/learning.
HashedRun run_hashed_detailed(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                              std::uint64_t seed, OpSink& sink, const HashedOptions& options = {});
/// The same with the parameters given (hash_params_from a saved set) instead of drawn from the seed.
HashedRun run_hashed_detailed(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                              HashParams params, OpSink& sink, const HashedOptions& options = {});

RunResult run_hashed(const AttentionInputs& inputs, const AttentionConfig& config, Device device, std::uint64_t seed,
                     OpSink& sink);

}  // namespace ecosim::ecoformer
