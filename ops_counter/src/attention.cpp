// Attention variant names, parameter validation, projections and dispatch to the per-family counters.
#include "ecosim/ops_counter/attention.hpp"

#include <array>

#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/layers.hpp"

namespace ecosim {

namespace {
constexpr std::array<AttentionVariant, 9> kVariants = {
    AttentionVariant::msa,          AttentionVariant::performer,     AttentionVariant::linformer,
    AttentionVariant::reformer,     AttentionVariant::ecoformer,     AttentionVariant::fp_ecoformer,
    AttentionVariant::bi_ecoformer, AttentionVariant::lsh_ecoformer, AttentionVariant::klsh_ecoformer};
constexpr std::array<std::string_view, 9> kVariantNames = {
    "msa", "performer", "linformer", "reformer", "ecoformer", "fp-ecoformer", "bi-ecoformer", "lsh-ecoformer",
    "klsh-ecoformer"};

// Largest dimension accepted: keeps every product of a few dimensions far from 64-bit overflow and
// rejects typos such as an extra digit early, with a message, rather than deep inside a count.
constexpr std::uint64_t kMaxDim = std::uint64_t{1} << 24;

void require_range(std::string_view what, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  if (v < lo || v > hi)
    throw Error(std::string(what) + " = " + std::to_string(v) + " is outside " + std::to_string(lo) + ".." +
                std::to_string(hi));
}
}  // namespace

std::string_view name(AttentionVariant v) { return kVariantNames[static_cast<std::size_t>(v)]; }

std::optional<AttentionVariant> parse_attention_variant(std::string_view text) {
  for (std::size_t i = 0; i < kVariants.size(); ++i)
    if (kVariantNames[i] == text) return kVariants[i];
  return std::nullopt;
}

AttentionVariant attention_variant_named(std::string_view text) {
  if (auto v = parse_attention_variant(text)) return *v;
  std::string valid;
  for (auto n : kVariantNames) valid += (valid.empty() ? "" : ", ") + std::string(n);
  throw Error("unknown attention variant '" + std::string(text) + "' (valid: " + valid + ")");
}

std::span<const AttentionVariant> all_attention_variants() { return kVariants; }

bool is_hashed(AttentionVariant v) {
  return v == AttentionVariant::ecoformer || v == AttentionVariant::fp_ecoformer ||
         v == AttentionVariant::bi_ecoformer || v == AttentionVariant::lsh_ecoformer ||
         v == AttentionVariant::klsh_ecoformer;
}

std::uint64_t AttentionConfig::code_bits() const {
  return variant == AttentionVariant::bi_ecoformer ? head_dim : bits;
}

void AttentionConfig::validate() const {
  require_range("batch", batch, 1, kMaxDim);
  require_range("heads", heads, 1, 4096);
  require_range("seq", seq, 1, kMaxDim);
  require_range("head dim", head_dim, 1, 65536);
  require_range("embedding width", width(), 1, kMaxDim);
  switch (variant) {
    case AttentionVariant::performer: require_range("features", features, 1, kMaxDim); break;
    case AttentionVariant::linformer: require_range("projected length k", proj_k, 1, kMaxDim); break;
    case AttentionVariant::reformer:
      require_range("hashes", hashes, 1, 64);
      require_range("chunk", chunk, 1, kMaxDim);
      require_range("chunks before", chunks_before, 0, 64);
      break;
    case AttentionVariant::bi_ecoformer:
      require_range("head dim (the code width of bi-ecoformer)", head_dim, 1, 64);
      break;
    case AttentionVariant::lsh_ecoformer: require_range("bits", bits, 1, 64); break;
    case AttentionVariant::ecoformer:
    case AttentionVariant::klsh_ecoformer:
    case AttentionVariant::fp_ecoformer:
      require_range("bits", bits, 1, 64);
      require_range("support samples", support, 1, seq);
      break;
    case AttentionVariant::msa: break;
  }
}

std::uint64_t reformer_buckets(const AttentionConfig& c) {
  const std::uint64_t chunks = (c.seq + c.chunk - 1) / c.chunk;
  return chunks < 2 ? 2 : chunks + chunks % 2;
}

void emit_attention(const std::string& prefix, const AttentionConfig& c, Convention convention, OpSink& sink) {
  c.validate();
  const std::uint64_t tokens = checked_mul(c.batch, c.seq);
  const std::uint64_t inner = checked_mul(c.heads, c.head_dim);
  if (c.projections) {
    if (c.variant == AttentionVariant::msa || c.variant == AttentionVariant::performer ||
        c.variant == AttentionVariant::linformer) {
      emit({prefix + ".qkv", Linear{.tokens = tokens, .in = c.width(), .out = checked_mul(3, inner)}}, convention,
           sink);
    } else {  // Reformer and the hashed family share one projection for queries and keys
      emit({prefix + ".qk", Linear{.tokens = tokens, .in = c.width(), .out = inner}}, convention, sink);
      emit({prefix + ".v", Linear{.tokens = tokens, .in = c.width(), .out = inner}}, convention, sink);
    }
  }
  const detail::AttentionEmitter emitter(prefix, convention, sink);
  switch (c.variant) {
    case AttentionVariant::msa:
    case AttentionVariant::linformer: detail::emit_softmax_attention(c, emitter); break;
    case AttentionVariant::reformer: detail::emit_reformer(c, emitter); break;
    case AttentionVariant::performer: detail::emit_performer(c, emitter); break;
    default: detail::emit_hashed(c, emitter); break;
  }
  if (c.projections)
    emit({prefix + ".proj", Linear{.tokens = tokens, .in = inner, .out = c.width()}}, convention, sink);
}

}  // namespace ecosim
