// Attention variants and their op counts: softmax MSA, Performer (FAVOR+), Linformer, Reformer-style LSH,
// EcoFormer hashed attention and the EcoFormer ablations (FP, Bi, LSH, KLSH). Shapes: B batch, H heads,
// N tokens, C head width (embedding H·C); every formula is in ops_counter/README.md.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim {

enum class AttentionVariant : std::uint8_t {
  msa, performer, linformer, reformer, ecoformer, fp_ecoformer, bi_ecoformer, lsh_ecoformer, klsh_ecoformer,
  sra,  // PVTv2's spatial-reduction attention: softmax over keys/values from a strided conv of the token grid
  lsa   // Twins' locally-grouped attention: softmax attention within non-overlapping window × window groups
};
std::string_view name(AttentionVariant v);  // "msa", "performer", ..., "fp-ecoformer", ...
std::optional<AttentionVariant> parse_attention_variant(std::string_view text);
/// The variant called `text`; throws ecosim::Error listing the valid names when there is none.
AttentionVariant attention_variant_named(std::string_view text);
std::span<const AttentionVariant> all_attention_variants();
/// True for EcoFormer and its ablations, whose q and k share one projection and which hash tokens.
bool is_hashed(AttentionVariant v);

struct AttentionConfig {
  AttentionVariant variant = AttentionVariant::msa;
  std::uint64_t batch = 1, heads = 1, seq = 1, head_dim = 32;
  bool projections = true;      // count the q/k/v and output projections (Linear with bias)
  std::uint64_t embed_dim = 0;  // input width of the projections; 0 = heads·head_dim
  std::uint64_t bits = 16;      // EcoFormer hash bits b (1..64)
  std::uint64_t support = 25;   // EcoFormer kernel anchors m
  std::uint64_t features = 256; // Performer random features
  std::uint64_t proj_k = 256;   // Linformer projected length
  std::uint64_t hashes = 2;     // Reformer hash rounds
  std::uint64_t chunk = 64;     // Reformer chunk length
  std::uint64_t chunks_before = 1;
  std::uint64_t sr_ratio = 8;   // SRA: kernel = stride of the reduction conv (1 = no reduction)
  std::uint64_t grid_height = 0;  // SRA, LSA: token grid height (width = seq / height); 0 = most square
  std::uint64_t window = 7;       // LSA: window side (the grid is zero-padded to whole windows)

  std::uint64_t width() const { return embed_dim ? embed_dim : heads * head_dim; }
  /// Hash bits actually used: `bits`, except Bi-EcoFormer, whose codes are the signs of the C features.
  std::uint64_t code_bits() const;
  /// Throws ecosim::Error naming the first zero, out-of-range or inconsistent parameter.
  void validate() const;
};

/// Reformer buckets per hash round: the even number nearest above N/chunk (at least 2).
std::uint64_t reformer_buckets(const AttentionConfig& c);

/// SRA/LSA token grid height (grid_height, 0 when it does not divide seq; unset: the most nearly square
/// grid, h = the largest divisor of seq not above √seq, so √seq for a square), the
/// number of SRA keys/values after the k = s = sr_ratio reduction, ⌊h/sr⌋·⌊w/sr⌋, and the number of LSA
/// windows, ⌈h/window⌉·⌈w/window⌉. Valid for a validated config.
std::uint64_t token_grid_height(const AttentionConfig& c);
std::uint64_t sra_keys(const AttentionConfig& c);
std::uint64_t lsa_windows(const AttentionConfig& c);

/// Reports the attention layer's records, named "<prefix>.<part>", to sink.
void emit_attention(const std::string& prefix, const AttentionConfig& config, Convention convention,
                    OpSink& sink);

}  // namespace ecosim
