// Parameters of the hashed attention variants, one set per head, prepared on the host from the seed (Philox)
// and — for the learned variants — from the input itself, then copied to the device so the CPU reference
// and the CUDA kernels hash with bit-identical values.
#pragma once
#include <cstdint>
#include <vector>

#include "ecosim/ecoformer/hash_learning.hpp"
#include "ecosim/ecoformer/kernel_parameters.hpp"
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"

namespace ecosim::ecoformer {

struct HashParams {
  AttentionVariant variant = AttentionVariant::ecoformer;
  std::uint64_t heads = 0, dim = 0, bits = 0, support = 0;
  /// Kernel variants: [heads][support][dim], the L2-normalised shared q/k tokens of that head at `support`
  /// distinct positions (over batch × seq) drawn from the seed. Empty otherwise.
  std::vector<float> anchors;
  /// Kernel variants: [heads][bits][support]; lsh-ecoformer: [heads][bits][dim]; empty for bi-ecoformer.
  /// Every row is scaled to unit ℓ1 norm (signs unchanged), so real-valued codes (fp-ecoformer) satisfy
  /// |h_r| < 1 and every similarity h_i·h_j + c with c > b stays positive.
  std::vector<float> projection;
  /// ecoformer and fp-ecoformer: the learning report of each head (loss per bit).
  std::vector<LearnedProjection> learning;

  bool kernel() const { return stages::hashes_through_anchors(variant); }  // RBF-kernel hash
  bool binary() const { return stages::binary_codes(variant); }
};

/// Tokens of each head used to learn the projection: at most this many, drawn from batch × seq.
inline constexpr std::uint64_t kLearningTokens = 256;

/// Draws (and for ecoformer / fp-ecoformer learns) the parameters for config.variant from the shared q/k
/// tensor `qk` ([batch][heads][seq][dim], not yet normalised). Learned variants start from the KLSH
/// projection of the same seed and learn on a deterministic subsample of kLearningTokens tokens per head. A
/// causal config's anchors and learning sample are random unit vectors instead, fixed beforehand: no token of
/// the sequence (so none later than a query, nor another batch entry's) shapes a code.
/// Throws ecosim::Error for a variant that is not hashed or a shape that does not match config.
HashParams make_hash_params(const Tensor& qk, const AttentionConfig& config, std::uint64_t seed);

/// The hash parameters of a given set (its "anchors" and "projection", checked by check_kernel_parameters),
/// without a learning report.
HashParams hash_params_from(const KernelParameters& parameters, const AttentionConfig& config);

}  // namespace ecosim::ecoformer
