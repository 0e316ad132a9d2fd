// Internal: the operation records the hashed attention kernels (CPU and CUDA) report, phase by phase, as
// they run. Each method is called right after its phase and states what that phase performed, from the
// loop bounds of the kernels; the test compares the total with the analytic counter.
#pragma once
#include <cstdint>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::ecoformer::detail {

class HashedReporter {
 public:
  HashedReporter(const AttentionConfig& config, OpSink& sink);

  void normalized();  // x / max(‖x‖, eps) of every token
  // The hash, part by part (ops_counter's hash_stages.hpp describes each part's record).
  void distances();      // ‖x − a‖² to every anchor
  void kernel_values();  // σ from the distances' sum, then exp(−‖x − a‖²/(2σ))
  void centred();        // per-anchor mean over the tokens, subtracted
  void projected();      // b projections of m (kernel) or d (lsh) values
  void signs();          // b sign comparisons (binary variants)
  void code_sums();      // s = Σ_j h_j
  void value_sums();     // z = Σ_j v_j, then c·z
  void context();        // M = Σ_j h_j v_jᵀ
  void numerator();      // h_i·M + c·z
  void denominator();    // h_i·s + c·N
  void normalised();     // num_i · (1/den_i)

 private:
  void emit(OpRecord r);

  const AttentionConfig& config_;
  OpSink& sink_;
  std::uint64_t groups_, n_, d_, b_;
  bool binary_;
  DType code_, sum_;
};

}  // namespace ecosim::ecoformer::detail
