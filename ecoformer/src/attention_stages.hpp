// Internal: the records the baseline kernels report to their OpSink after each stage they run (exact
// convention, built with ops_counter's primitive builders), and the Reformer chunk plan that both drives
// the chunked attention and yields its records. Summed, a kernel's records equal
// emit_attention(…, projections = false, Convention::exact, …) for the same shapes; tests check that.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::ecoformer::detail {

/// Prefixes record names with "attention." and forwards them to the sink.
class Reporter {
 public:
  explicit Reporter(OpSink& sink) : sink_(sink) {}
  void operator()(OpRecord r) const;
  void operator()(const std::vector<OpRecord>& records) const;

 private:
  OpSink& sink_;
};

/// Softmax attention of n queries over `keys` keys and values in each of g groups (scores, scale, softmax,
/// context). Counted as the algorithm defines it: the online (tiled) form's rescaling of its running sum
/// and accumulator when the running maximum grows is an implementation detail and is not counted.
/// `input` is the type Q, K and V are read in (arithmetic is fp32 either way).
std::vector<OpRecord> softmax_attention_records(std::uint64_t g, std::uint64_t n, std::uint64_t keys,
                                                std::uint64_t d, DType input = DType::fp32);
/// Linformer's E·K and E·V (E shared by every group).
std::vector<OpRecord> linformer_projection_records(std::uint64_t g, std::uint64_t n, std::uint64_t k,
                                                   std::uint64_t d);
/// Performer: the positive random features of q or k (`which`) — scale, ωᵀx̃, ‖x̃‖²/2, exp.
std::vector<OpRecord> performer_feature_records(const std::string& which, std::uint64_t g, std::uint64_t n,
                                                std::uint64_t d, std::uint64_t f);
/// Performer: φ(K)ᵀV, Σ_j φ(k_j), numerator, denominator and the final division.
std::vector<OpRecord> performer_mixing_records(std::uint64_t g, std::uint64_t n, std::uint64_t d,
                                               std::uint64_t f);

/// Reformer: sorted tokens of one round cut into chunks of `chunk`; chunk i attends to itself and the
/// `before` chunks preceding it, wrapping around (never the same chunk twice).
/// Scaled score a token gives itself (shared QK makes its own key the best match): low enough that it gets
/// no weight beside any other key, finite so a token with no other key still attends to itself.
inline constexpr float kReformerSelfScore = -1e5f;

struct ReformerPlan {
  std::uint64_t seq = 0, chunk = 0, chunks = 0, before = 0, buckets = 0, rounds = 0;
  std::uint64_t start(std::uint64_t i) const { return i * chunk; }
  std::uint64_t size(std::uint64_t i) const { return i + 1 < chunks ? chunk : seq - (chunks - 1) * chunk; }
  /// The j-th chunk chunk i attends to (j = 0 is itself), 0 ≤ j ≤ before.
  std::uint64_t key_chunk(std::uint64_t i, std::uint64_t j) const { return (i + chunks - j) % chunks; }
  std::uint64_t keys(std::uint64_t i) const;
};
ReformerPlan reformer_plan(const AttentionConfig& c);
/// Normalise, rotate, argmax, sort and gather.
std::vector<OpRecord> reformer_hashing_records(const ReformerPlan& p, std::uint64_t g, std::uint64_t d);
/// The chunked attention of every round, one group of records per distinct (queries, keys) chunk shape.
std::vector<OpRecord> reformer_chunk_records(const ReformerPlan& p, std::uint64_t g, std::uint64_t d);
/// Unsort and the combination of the rounds by their normalisers.
std::vector<OpRecord> reformer_combine_records(const ReformerPlan& p, std::uint64_t g, std::uint64_t d);

}  // namespace ecosim::ecoformer::detail
