// Self-supervised learning of the KSH projection (EcoFormer §3.2): targets from token similarity, bits
// learned one at a time by discrete cyclic coordinate descent on ‖b·S − HHᵀ‖²_F with a tanh relaxation.
#pragma once
#include <cstdint>
#include <vector>

namespace ecosim::ecoformer {

/// S (n×n, row-major) for L2-normalised tokens x (n×d): row i holds +1 at the k tokens most similar to
/// token i (largest x_i·x_j, token i itself included), −1 at the k least similar, 0 elsewhere;
/// k = min(top_k, n/2) so the two sets never overlap. Ties are broken by token index.
std::vector<float> similarity_targets(const std::vector<float>& x, std::uint64_t n, std::uint64_t d,
                                      std::uint64_t top_k = 10);

struct BitLearning {
  double loss_before = 0;   // ‖R‖² of the residual R = b·S − Σ_{earlier bits} h hᵀ
  double loss_initial = 0;  // ‖R − h hᵀ‖² with the bit of the initial (random) weights
  double loss_learned = 0;  // the same with the best relaxed-optimised weights
  bool accepted = false;    // loss_learned < loss_initial: the learned weights replace the initial ones
  double loss_after() const { return accepted ? loss_learned : loss_initial; }
};

struct LearnedProjection {
  std::vector<float> weights;     // bits×m, row r = w_r; rows of rejected bits keep their initial values
  std::vector<BitLearning> bits;  // the discrete loss per bit, in learning order
};

struct LearningOptions {
  unsigned iterations = 60;  // relaxed gradient steps per bit
  double step = 0.1;         // step length relative to ‖w‖
  double momentum = 0.9;
};

/// Learns b = initial.size()/m bits for centred kernel features K (n×m, row-major) and targets S (n×n):
/// for each bit r in turn, starting from row r of `initial`, gradient ascent on tᵀ(R + Rᵀ)t/2 with
/// t = tanh(K w) (the relaxation of maximising hᵀRh, which is minimising ‖R − hhᵀ‖²); the iterate with
/// the lowest discrete loss is kept if it beats the initial weights; then R ← R − h hᵀ. h = sign(K w),
/// with sign(0) = −1 as in the attention kernels.
LearnedProjection learn_ksh_projection(const std::vector<float>& kernel, std::uint64_t n, std::uint64_t m,
                                       const std::vector<float>& targets, const std::vector<float>& initial,
                                       const LearningOptions& options = {});

}  // namespace ecosim::ecoformer
