// Attention layer configurations and their op counts: softmax MSA, Performer (FAVOR+), Linformer, Reformer-style LSH,
// EcoFormer hashed attention and the EcoFormer ablations (FP, Bi, LSH, KLSH). Shapes: B batch, H heads,
// N tokens (queries; keys Nk = N unless given apart), C head width (embedding H·C), optionally causal;
// every formula is in ops_counter/README.md.
#pragma once
#include <cstdint>
#include <string>

#include "ecosim/ops_counter/op_record.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"

namespace ecosim {

struct AttentionConfig {
  AttentionVariant variant = AttentionVariant::msa;
  std::uint64_t batch = 1, heads = 1, seq = 1, head_dim = 32;
  bool projections = true;      // count the q/k/v and output projections (Linear with bias)
  std::uint64_t embed_dim = 0;  // input width of the projections; 0 = heads·head_dim
  /// Keys (and values) Nk when they are another token set than the N = seq queries (a decode step: 1 query,
  /// the cached keys); 0 = seq. Only a variant with the registry's separate_keys serves Nk ≠ N.
  std::uint64_t keys = 0;
  /// Causal (decoder) attention: with P = Nk − N, query i (at position P + i) attends to keys 0..P + i.
  /// Only a variant with the registry's causal_form serves it.
  bool causal = false;
  // The variant parameters (meaning, default and range: kVariantParameters in variant_registry.hpp).
  std::uint64_t bits = default_of(VariantParameterId::bits);                      // EcoFormer hash bits b
  std::uint64_t support = default_of(VariantParameterId::support);                // EcoFormer kernel anchors m
  std::uint64_t features = default_of(VariantParameterId::features);              // Performer random features
  std::uint64_t proj_k = default_of(VariantParameterId::proj_k);                  // Linformer projected length
  std::uint64_t hashes = default_of(VariantParameterId::hashes);                  // Reformer hash rounds
  std::uint64_t chunk = default_of(VariantParameterId::chunk);                    // Reformer chunk length
  std::uint64_t chunks_before = default_of(VariantParameterId::chunks_before);    // Reformer
  std::uint64_t sr_ratio = default_of(VariantParameterId::sr_ratio);              // SRA reduction conv k = s
  std::uint64_t grid_height = default_of(VariantParameterId::grid_height);        // SRA, LSA token grid height
  std::uint64_t window = default_of(VariantParameterId::window);                  // LSA window side
  std::uint64_t sliding_window = default_of(VariantParameterId::sliding_window);  // sliding: keys per query W
  /// Training: dropout on the attention probabilities (BERT's); inference computes none, so no op counts it.
  bool probs_dropout = false;
  /// Grouped-query attention: the K/V heads, each shared by heads / kv_heads query heads; 0 = heads (one K/V head
  /// per query head). A recurrent variant keeps its sums over keys once per key head (key_heads) and its sums of
  /// values once per value head (value_heads). A variant sharing queries and keys keys each query head with its
  /// own queries: only the values are grouped.
  std::uint64_t kv_heads = 0;
  /// LSA over a grid padded to whole windows: the q/k/v projection runs over the padded tokens (Twins and Swin
  /// pad before it); the output projection too when it belongs to the window attention (Swin), else over the
  /// cropped tokens (Twins).
  bool lsa_padded_proj = false;

  /// The field holding variant parameter `id`.
  std::uint64_t& parameter(VariantParameterId id);
  std::uint64_t parameter(VariantParameterId id) const;

  std::uint64_t width() const { return embed_dim ? embed_dim : heads * head_dim; }
  /// The heads of the values: `kv_heads`, or heads when not given apart.
  std::uint64_t value_heads() const { return kv_heads ? kv_heads : heads; }
  /// The heads of the keys: the query heads for a variant whose keys are its queries (shares_qk), else
  /// value_heads() (grouped-query attention shares a K/V head between query heads).
  std::uint64_t key_heads() const { return variant_info(variant).shares_qk ? heads : value_heads(); }
  /// Nk: `keys`, or seq when not given apart.
  std::uint64_t key_count() const { return keys ? keys : seq; }
  /// Hash bits actually used: `bits`, except Bi-EcoFormer, whose codes are the signs of the C features.
  std::uint64_t code_bits() const;
  /// Throws ecosim::Error naming the first zero, out-of-range or inconsistent parameter.
  void validate() const;
};

/// The (query, key) pairs one attention of `queries` queries over `keys` keys scores: queries·keys, or when
/// causal (keys ≥ queries, P = keys − queries) queries·P + queries(queries+1)/2 (query i sees P + i + 1 keys); with
/// a sliding `window` W > 0 (causal), query i sees min(P + i + 1, W) keys.
std::uint64_t attended_pairs(std::uint64_t queries, std::uint64_t keys, bool causal, std::uint64_t window = 0);
/// The keys a block of sliding-window attention reads: the last min(Nk, W + N − 1), from the first query's window
/// to the last query; Nk for another variant.
std::uint64_t window_keys(const AttentionConfig& c);

/// Keys a variant with a recurrent causal form (the registry's `recurrent`: Performer, the EcoFormer family) folds
/// into its sums in this block: when causal, the N new tokens (the P = Nk − N earlier ones are in the state it
/// holds); otherwise all Nk.
std::uint64_t folded_keys(const AttentionConfig& c);
/// A causal block that adds onto a held state of earlier keys (P = Nk − N > 0).
bool holds_state(const AttentionConfig& c);
/// The bytes of a recurrent variant's state — its sums over keys per key head, of values per value head, the
/// values its state records write
/// (Performer: S, F×d, and z, F, fp32; the EcoFormer family: M, b×d fp32, s, b (int32 for binary codes), and
/// Σv, d fp32), constant in the context; 0 for a variant that keeps its keys (a KV cache).
std::uint64_t recurrent_state_bytes(const AttentionConfig& c);

/// Reformer buckets per hash round: the even number nearest above Nk/chunk (at least 2; Nk = N but in decode).
std::uint64_t reformer_buckets(const AttentionConfig& c);
/// Keys each new token of a Reformer decode block attends to per round: the (before + 1)·L ending at it in the
/// round's sorted order (before: chunks_before, at most as many chunks as the Nk keys make, less one).
std::uint64_t reformer_decode_window(const AttentionConfig& c);

/// SRA/LSA token grid height (grid_height, 0 when it does not divide seq; unset: the most nearly square
/// grid, h = the largest divisor of seq not above √seq, so √seq for a square), the
/// number of SRA keys/values after the k = s = sr_ratio reduction, ⌊h/sr⌋·⌊w/sr⌋, and the number of LSA
/// windows, ⌈h/window⌉·⌈w/window⌉. Valid for a validated config.
std::uint64_t token_grid_height(const AttentionConfig& c);
std::uint64_t sra_keys(const AttentionConfig& c);
std::uint64_t lsa_windows(const AttentionConfig& c);

/// The tokens (batch included) the q/k/v projection and the output projection run over: batch·seq, but for LSA
/// over a padded grid (lsa_padded_proj).
struct ProjectionTokens {
  std::uint64_t qkv = 0, proj = 0;
};
ProjectionTokens projection_tokens(const AttentionConfig& c);

/// Reports the attention layer's records, named "<prefix>.<part>", to sink.
void emit_attention(const std::string& prefix, const AttentionConfig& config, Convention convention, OpSink& sink);

}  // namespace ecosim
