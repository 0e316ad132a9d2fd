// The stages of every attention family as operation records, defined once: the analytic counter
// (emit_attention) is the sequence of a family's stages, and the kernels (ecoformer/) report each stage's
// records right after running it, so the instrumented counts equal the analytic ones by construction.
// Each stage returns its records in execution order, each in the exact convention (fusion group set where
// it applies) beside its counts under the paper convention. Records are named as emit_attention names them
// before the layer prefix; formulas in ops_counter/README.md. The hash of the hashed family: hash_stages.hpp.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "ecosim/ops_counter/attention.hpp"

namespace ecosim::stages {

/// One record of a stage: the operations performed (exact convention) and their paper-convention counts.
struct StageRecord {
  OpRecord exact;
  OpCounts paper;
};
/// A stage's records, in execution order.
using Stage = std::vector<StageRecord>;

// Softmax attention: msa (keys = the Nk keys, causal: the attended pairs only), sra (keys = the reduced grid),
// lsa (every window a batch entry of window² tokens), linformer (keys = the k rows projected from Nk), sliding
// (keys = window_keys, each query over the W ending at it, causal or not).
/// Linformer: k_proj, v_proj (E·K and E·V, E shared by every batch entry and head).
Stage linformer_projections(const AttentionConfig& c);
/// scores, scale, softmax, context (group "softmax_attention"); Q, K and V read as `input`. Counted as the
/// algorithm defines it: an online (tiled) form's rescaling of its running sums is not counted.
Stage softmax_attention(const AttentionConfig& c, DType input = DType::fp32);
/// The same four records for `groups` independent attentions (batch × heads) of `queries` queries over `keys`
/// keys of head width d: what softmax_attention counts, and what an imported graph's attention block counts.
/// Causal: only the attended pairs (attended_pairs) are scored, scaled, normalised and summed; the records keep
/// the queries × keys shapes, marked params.causal = 1 (ops::kCausalParam). A sliding `window` W > 0 (causal):
/// query i sees min(P + i + 1, W) keys. `kv_groups` (causal; 0: = groups): the K/V heads the groups read their
/// keys and values from (grouped-query attention), each read once in the bytes.
Stage softmax_core(std::uint64_t groups, std::uint64_t queries, std::uint64_t keys, std::uint64_t d,
                   DType input = DType::fp32, bool causal = false, std::uint64_t window = 0,
                   std::uint64_t kv_groups = 0);

// Performer (FAVOR+).
/// The positive random features of `which` ("q" or "k"): <which>_scale, _omega, _sq_norm, _features.
Stage performer_features(const AttentionConfig& c, std::string_view which);
/// kv (S = Σ φ(k)vᵀ) and k_sum (z = Σ φ(k)) over the folded keys (folded_keys), added onto the held state when
/// holds_state: the records whose written bytes are the recurrent state.
Stage performer_state(const AttentionConfig& c);
/// performer_state, then numerator, denominator, normalise.
Stage performer_mixing(const AttentionConfig& c);

// Reformer (LSH attention).
/// The tokens of one round, sorted by bucket, cut into chunks of `chunk`; chunk i attends to itself and the
/// `before` chunks preceding it, wrapping around (never the same chunk twice). Drives the kernels' chunked
/// attention and yields the chunk records.
struct ReformerPlan {
  std::uint64_t seq = 0, chunk = 0, chunks = 0, before = 0, buckets = 0, rounds = 0;
  std::uint64_t start(std::uint64_t i) const { return i * chunk; }
  std::uint64_t size(std::uint64_t i) const { return i + 1 < chunks ? chunk : seq - (chunks - 1) * chunk; }
  /// The j-th chunk chunk i attends to (j = 0 is itself), 0 ≤ j ≤ before.
  std::uint64_t key_chunk(std::uint64_t i, std::uint64_t j) const { return (i + chunks - j) % chunks; }
  std::uint64_t keys(std::uint64_t i) const;
};
ReformerPlan reformer_plan(const AttentionConfig& c);
/// k_normalize, rotations, bucket_argmax, sort, gather.
Stage reformer_hashing(const AttentionConfig& c);
/// Every round's chunked attention: chunk_scores, chunk_scale (with the own-key mask), chunk_softmax
/// (unnormalised), chunk_context per distinct (queries, keys) chunk shape, suffixed ".<i>" when there are
/// several, each shape's four in group "chunk_attention[.<i>]".
Stage reformer_chunk_attention(const AttentionConfig& c);
/// unsort, combine_rounds.
Stage reformer_combine(const AttentionConfig& c);

// The hashed family (EcoFormer and its ablations), around the hash of hash_stages.hpp.
enum class HashedStage : std::uint8_t {
  qk_normalize,  // x / max(‖x‖, eps) of every token (before the hash)
  code_sum,      // s = Σ_j h_j
  value_sum,     // z = Σ_j v_j, then c·z
  context,       // M = Σ_j h_j v_jᵀ
  numerator,     // h_i·M + c·z
  denominator,   // h_i·s + c·N
  normalise      // num_i · (1/den_i)
};
/// The stage's one record, named as its enumerator.
Stage hashed_stage(const AttentionConfig& c, HashedStage stage);
/// code_sum, value_sum, context: the records whose written bytes are the recurrent state (s, z, M).
Stage hashed_state(const AttentionConfig& c);

}  // namespace ecosim::stages
