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
  // Sub-phases of the hash, accumulated into one "hash" record that hashed() reports.
  void distances();      // ‖x − a‖² to every anchor, and their sum
  void bandwidth();      // σ = max(sum/(N·m), tiny), 1/(2σ)
  void kernel_values();  // exp(−‖x − a‖²/(2σ))
  void centred();        // per-anchor mean over the tokens, subtracted
  void projected();      // b projections of m (kernel) or d (lsh) values
  void signs();          // b sign comparisons (binary variants)
  void hashed();
  void code_sums();      // s = Σ_j h_j
  void value_sums();     // z = Σ_j v_j, then c·z
  void context();        // M = Σ_j h_j v_jᵀ
  void numerator();      // h_i·M + c·z
  void denominator();    // h_i·s + c·N
  void normalised();     // num_i · (1/den_i)

 private:
  void emit(OpRecord r);
  void add_hash_ops(const ops::OpMix& per_group);

  const AttentionConfig& config_;
  OpSink& sink_;
  std::uint64_t groups_, n_, d_, b_, m_;
  bool binary_;
  DType code_, sum_;
  OpCounts hash_ops_;
};

}  // namespace ecosim::ecoformer::detail
