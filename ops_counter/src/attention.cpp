// Attention parameter validation (ranges from the variant registry), projections, and dispatch to the
// per-family counters.
#include "ecosim/ops_counter/attention.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/layers.hpp"

namespace ecosim {

namespace {
void require_range(std::string_view what, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  if (v < lo || v > hi)
    throw Error(std::string(what) + " = " + std::to_string(v) + " is outside " + std::to_string(lo) + ".." +
                std::to_string(hi));
}

/// The variants the registry marks with `flag`, comma-separated.
std::string variants_with(bool VariantInfo::*flag) {
  std::string names;
  for (const VariantInfo& row : variant_registry())
    if (row.*flag) names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

/// The token grid height of an SRA/LSA config; throws when a given height does not divide the tokens.
std::uint64_t require_grid(const AttentionConfig& c) {
  const std::uint64_t h = token_grid_height(c);
  if (h == 0)
    throw Error(std::string(name(c.variant)) + ": " + std::to_string(c.seq) + " tokens are not a grid of height " +
                std::to_string(c.grid_height));
  return h;
}
/// SRA's projections (with c.projections) and its spatial reduction (always: how it reduces its keys, part of
/// the variant as Linformer's projections are): q from every token; keys and values from the token grid reduced
/// by a k = s = sr conv (with bias) and a LayerNorm (no reduction when sr = 1), then one kv Linear.
void emit_sra_reduction(const std::string& prefix, const AttentionConfig& c, Convention convention, OpSink& sink) {
  const std::uint64_t inner = checked_mul(c.heads, c.head_dim), keys = checked_mul(c.batch, sra_keys(c));
  if (c.projections)
    emit({prefix + ".q", Linear{.tokens = checked_mul(c.batch, c.seq), .in = c.width(), .out = inner}}, convention,
         sink);
  if (c.sr_ratio > 1) {
    const std::uint64_t h = token_grid_height(c);
    emit({prefix + ".sr", Conv2d{.batch = c.batch,
                                 .in_ch = c.width(),
                                 .out_ch = c.width(),
                                 .in_h = h,
                                 .in_w = c.seq / h,
                                 .kernel = c.sr_ratio,
                                 .stride = c.sr_ratio}},
         convention, sink);
    emit({prefix + ".sr_norm", LayerNorm{keys, c.width()}}, convention, sink);
  }
  if (c.projections)
    emit({prefix + ".kv", Linear{.tokens = keys, .in = c.width(), .out = checked_mul(2, inner)}}, convention, sink);
}
}  // namespace

std::uint64_t& AttentionConfig::parameter(VariantParameterId id) {
  switch (id) {
    case VariantParameterId::bits: return bits;
    case VariantParameterId::support: return support;
    case VariantParameterId::features: return features;
    case VariantParameterId::proj_k: return proj_k;
    case VariantParameterId::hashes: return hashes;
    case VariantParameterId::chunk: return chunk;
    case VariantParameterId::chunks_before: return chunks_before;
    case VariantParameterId::sr_ratio: return sr_ratio;
    case VariantParameterId::grid_height: return grid_height;
    case VariantParameterId::window: return window;
    case VariantParameterId::sliding_window: return sliding_window;
  }
  throw Error("unknown variant parameter " + std::to_string(static_cast<unsigned>(id)));
}

std::uint64_t AttentionConfig::parameter(VariantParameterId id) const {
  return const_cast<AttentionConfig&>(*this).parameter(id);
}

std::uint64_t AttentionConfig::code_bits() const { return variant == AttentionVariant::bi_ecoformer ? head_dim : bits; }

void AttentionConfig::validate() const {
  require_range("batch", batch, 1, kMaxDimension);
  require_range("heads", heads, 1, 4096);
  if (kv_heads) {
    require_range("kv heads", kv_heads, 1, heads);
    if (heads % kv_heads) throw Error(fmt::format("kv heads ({}) must divide heads ({})", kv_heads, heads));
  }
  require_range("seq", seq, 1, kMaxDimension);
  require_range("head dim", head_dim, 1, 65536);
  require_range("embedding width", width(), 1, kMaxDimension);
  const VariantInfo& info = variant_info(variant);
  if (keys) require_range("keys", keys, 1, kMaxDimension);
  if (causal && !info.causal_form)
    throw Error(
        fmt::format("{} has no causal form: it would make this causal (decoder) attention bidirectional "
                    "(variants with a causal form: {})",
                    name(variant), variants_with(&VariantInfo::causal_form)));
  if (key_count() != seq && !info.separate_keys && !causal)
    throw Error(
        fmt::format("{} needs the queries and keys to be one token set, here {} queries over {} keys (variants "
                    "that serve queries ≠ keys: {}; in a causal block: {})",
                    name(variant), seq, key_count(), variants_with(&VariantInfo::separate_keys),
                    variants_with(&VariantInfo::causal_form)));
  if ((causal || variant == AttentionVariant::sliding) && key_count() < seq)
    throw Error(
        fmt::format("causal attention of {} queries over {} keys: the queries are the last of the keys' "
                    "positions, so there are at least as many keys",
                    seq, key_count()));
  for (const VariantParameter& p : kVariantParameters)
    if (info.parameters.contains(p.id))
      require_range(std::string(p.name) + " (" + std::string(p.help) + ")", parameter(p.id), p.minimum, p.maximum);
  // Checks across fields.
  // anchors sampled from the keys; a causal form's are fixed beforehand (none of them a later token)
  if (info.parameters.contains(VariantParameterId::support) && !causal)
    require_range("support samples", support, 1, key_count());
  if (variant == AttentionVariant::bi_ecoformer)
    require_range("head dim (the code width of bi-ecoformer)", head_dim, 1, 64);
  if (info.parameters.contains(VariantParameterId::grid_height)) {
    const std::uint64_t h = require_grid(*this);
    if (variant == AttentionVariant::sra && (h < sr_ratio || seq / h < sr_ratio))
      throw Error("sra: the " + std::to_string(h) + "×" + std::to_string(seq / h) +
                  " token grid is smaller than the reduction ratio " + std::to_string(sr_ratio));
  }
}

std::uint64_t attended_pairs(std::uint64_t queries, std::uint64_t keys, bool causal, std::uint64_t window) {
  if (!causal) return checked_mul(queries, keys);
  if (keys < queries) throw Error("causal attention needs at least as many keys as queries");
  if (window && keys > window) {  // Σ_{t=P+1}^{P+N} min(t, W): the rows below W as the triangle, the rest W each
    const std::uint64_t first = keys - queries + 1;
    if (first > window) return checked_mul(queries, window);
    const std::uint64_t below = window - first + 1;  // rows t = first..W, W of them at most
    return checked_add(attended_pairs(below, window, true), checked_mul(queries - below, window));
  }
  // Σ_{i<N} (P + i + 1) = N·P + N(N+1)/2, one of N and N+1 even
  const std::uint64_t triangle =
      queries % 2 == 0 ? checked_mul(queries / 2, queries + 1) : checked_mul(queries, (queries + 1) / 2);
  return checked_add(checked_mul(queries, keys - queries), triangle);
}

std::uint64_t window_keys(const AttentionConfig& c) {
  if (c.variant != AttentionVariant::sliding) return c.key_count();
  return std::min(c.key_count(), checked_add(c.sliding_window, c.seq - 1));
}

std::uint64_t folded_keys(const AttentionConfig& c) { return c.causal ? c.seq : c.key_count(); }

bool holds_state(const AttentionConfig& c) { return c.causal && c.key_count() > c.seq; }

std::uint64_t recurrent_state_bytes(const AttentionConfig& c) {
  if (!variant_info(c.variant).recurrent) return 0;
  std::uint64_t bytes = 0;
  for (const stages::StageRecord& r :
       c.variant == AttentionVariant::performer ? stages::performer_state(c) : stages::hashed_state(c))
    bytes = checked_add(bytes, r.exact.counts.written_bytes());
  if (c.variant == AttentionVariant::performer)  // and each K/V head's key stabiliser (one fp32)
    bytes = checked_add(bytes, storage_bytes(DType::fp32, checked_mul(c.batch, c.key_heads())));
  return bytes;
}

std::uint64_t token_grid_height(const AttentionConfig& c) {
  if (c.grid_height) return c.seq % c.grid_height == 0 ? c.grid_height : 0;
  auto root = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(c.seq)));
  while (root * root > c.seq) --root;
  while ((root + 1) * (root + 1) <= c.seq) ++root;
  while (c.seq % root != 0) --root;  // the most nearly square grid: h ≤ w, h the largest such divisor
  return root;
}

std::uint64_t sra_keys(const AttentionConfig& c) {
  const std::uint64_t h = token_grid_height(c);
  return (h / c.sr_ratio) * (c.seq / h / c.sr_ratio);
}

std::uint64_t lsa_windows(const AttentionConfig& c) {
  const std::uint64_t h = token_grid_height(c), w = c.seq / h;
  return ((h + c.window - 1) / c.window) * ((w + c.window - 1) / c.window);
}

ProjectionTokens projection_tokens(const AttentionConfig& c) {
  const std::uint64_t tokens = checked_mul(c.batch, c.seq);
  if (c.variant != AttentionVariant::lsa) return {tokens, tokens};
  const std::uint64_t padded = checked_product({c.batch, lsa_windows(c), c.window, c.window});
  return {padded, c.lsa_padded_proj ? padded : tokens};
}

std::uint64_t reformer_buckets(const AttentionConfig& c) {
  const std::uint64_t chunks = (c.key_count() + c.chunk - 1) / c.chunk;
  return chunks < 2 ? 2 : chunks + chunks % 2;
}

std::uint64_t reformer_decode_window(const AttentionConfig& c) {
  const std::uint64_t chunks = (c.key_count() + c.chunk - 1) / c.chunk;
  return checked_mul(std::min(c.chunks_before, chunks - 1) + 1, c.chunk);
}

void emit_attention(const std::string& prefix, const AttentionConfig& c, Convention convention, OpSink& sink) {
  c.validate();
  const std::uint64_t tokens = checked_mul(c.batch, c.seq);
  const std::uint64_t inner = checked_mul(c.heads, c.head_dim);
  if (c.variant == AttentionVariant::sra) {
    emit_sra_reduction(prefix, c, convention, sink);
  } else if (c.projections) {
    if (variant_info(c.variant).shares_qk) {  // one projection for queries and keys
      emit({prefix + ".qk", Linear{.tokens = tokens, .in = c.width(), .out = inner}}, convention, sink);
      emit({prefix + ".v", Linear{.tokens = tokens, .in = c.width(), .out = inner}}, convention, sink);
    } else if (c.key_count() == c.seq || c.causal) {  // causal: the earlier keys' are cached (or in the state)
      emit({prefix + ".qkv", Linear{.tokens = projection_tokens(c).qkv, .in = c.width(), .out = checked_mul(3, inner)}},
           convention, sink);
    } else {  // queries from the N tokens, keys and values from the Nk others
      emit({prefix + ".q", Linear{.tokens = tokens, .in = c.width(), .out = inner}}, convention, sink);
      emit({prefix + ".kv",
            Linear{.tokens = checked_mul(c.batch, c.key_count()), .in = c.width(), .out = checked_mul(2, inner)}},
           convention, sink);
    }
  }
  const detail::AttentionEmitter emitter(prefix, convention, sink);
  switch (c.variant) {
    case AttentionVariant::msa:
    case AttentionVariant::sra:
    case AttentionVariant::lsa:
    case AttentionVariant::linformer:
    case AttentionVariant::sliding: detail::emit_softmax_attention(c, emitter); break;
    case AttentionVariant::reformer: detail::emit_reformer(c, emitter); break;
    case AttentionVariant::performer: detail::emit_performer(c, emitter); break;
    default: detail::emit_hashed(c, emitter); break;
  }
  if (c.projections)
    emit({prefix + ".proj", Linear{.tokens = projection_tokens(c).proj, .in = inner, .out = c.width()}}, convention,
         sink);
}

}  // namespace ecosim
