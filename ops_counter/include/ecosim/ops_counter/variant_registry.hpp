// The attention variants' registry: every fact about a variant defined once — its name, a one-line
// description, the parameters it reads (each with its default and valid range), and the flags shares_qk,
// hashed, has_kernel, separate_keys, causal_form and recurrent. Names, validation, the counters' projection choice, the
// kernels' dispatch check and the command line (options, help, applicability, reports) are all derived from it.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ecosim {

enum class AttentionVariant : std::uint8_t {
  msa,
  performer,
  linformer,
  reformer,
  ecoformer,
  fp_ecoformer,
  bi_ecoformer,
  lsh_ecoformer,
  klsh_ecoformer,
  sra,     // PVTv2's spatial-reduction attention: softmax over keys/values from a strided conv of the token grid
  lsa,     // Twins' locally-grouped attention: softmax attention within non-overlapping window × window groups
  sliding  // sliding-window attention (Mistral): softmax over the W keys ending at each query's position
};

/// Largest dimension accepted: keeps every product of a few dimensions far from 64-bit overflow and rejects
/// typos such as an extra digit early, with a message, rather than deep inside a count.
inline constexpr std::uint64_t kMaxDimension = std::uint64_t{1} << 24;

/// The per-variant parameters, one per AttentionConfig field of the same name.
enum class VariantParameterId : std::uint8_t {
  bits,
  support,
  features,
  proj_k,
  hashes,
  chunk,
  chunks_before,
  sr_ratio,
  grid_height,
  window,
  sliding_window
};

struct VariantParameter {
  VariantParameterId id;
  std::string_view name;  // AttentionConfig field and JSON key ("proj_k"); option: '-' for '_'
  std::uint64_t default_value;
  std::uint64_t minimum, maximum;  // valid values, inclusive
  std::string_view help;

  std::string option() const;  // the command-line option without dashes: "proj-k"
};

inline constexpr std::array<VariantParameter, 11> kVariantParameters = {{
    {VariantParameterId::bits, "bits", 16, 1, 64, "hash bits b"},
    {VariantParameterId::support, "support", 25, 1, kMaxDimension, "kernel anchors m (at most N)"},
    {VariantParameterId::features, "features", 256, 1, kMaxDimension, "random features F"},
    {VariantParameterId::proj_k, "proj_k", 256, 1, kMaxDimension, "projected length k"},
    {VariantParameterId::hashes, "hashes", 2, 1, 64, "hash rounds R"},
    {VariantParameterId::chunk, "chunk", 64, 1, kMaxDimension, "chunk length L"},
    {VariantParameterId::chunks_before, "chunks_before", 1, 0, 64, "chunks attended before each chunk"},
    {VariantParameterId::sr_ratio, "sr_ratio", 8, 1, 64, "reduction conv kernel = stride (1: no reduction)"},
    {VariantParameterId::grid_height, "grid_height", 0, 0, kMaxDimension,
     "token grid height (width N / height; 0: the most nearly square grid)"},
    {VariantParameterId::window, "window", 7, 1, 1024, "window side (the grid zero-padded to whole windows)"},
    {VariantParameterId::sliding_window, "sliding_window", 4096, 1, kMaxDimension,
     "keys W each query attends to (its own and the W − 1 before it; default on a model with a window of its "
     "own: that window)"},
}};

constexpr const VariantParameter& variant_parameter(VariantParameterId id) {
  return kVariantParameters[static_cast<std::size_t>(id)];
}
constexpr std::uint64_t default_of(VariantParameterId id) { return variant_parameter(id).default_value; }

/// A set of parameters (those one variant reads).
class ParameterSet {
 public:
  constexpr ParameterSet(std::initializer_list<VariantParameterId> ids) {
    for (VariantParameterId id : ids) mask_ |= std::uint32_t{1} << static_cast<unsigned>(id);
  }
  constexpr bool contains(VariantParameterId id) const { return (mask_ >> static_cast<unsigned>(id)) & 1u; }

 private:
  std::uint32_t mask_ = 0;
};

/// One row of the registry.
struct VariantInfo {
  AttentionVariant variant;
  std::string_view name;         // "fp-ecoformer"
  std::string_view description;  // one line
  ParameterSet parameters;       // the parameters it reads (validated, accepted on the command line, reported)
  bool shares_qk;                // queries and keys come from one projection (`qk`, then `v`)
  bool hashed;                   // the EcoFormer family: hashes tokens to codes
  bool has_kernel;               // ecosim::ecoformer::run_attention runs it (CPU reference and CUDA)
  bool compared_by_default;      // in `ecosim compare`'s default --variants
  /// Queries and keys may be different token sets, Nq ≠ Nk (an imported decode step, a reduced key set).
  bool separate_keys;
  /// A causal form is modelled (query i attends to keys up to its own position): only such a variant may
  /// serve a causal (decoder) block.
  bool causal_form;
  /// Its causal form keeps a constant-size recurrent state of running sums (recurrent_state_bytes) instead of the
  /// keys and values (a KV cache): a decode step's work and memory do not grow with the context.
  bool recurrent;

  /// No kernel: it can be counted, traced and replayed, not run.
  constexpr bool count_only() const { return !has_kernel; }
};

/// Every variant, in enum order (row i describes AttentionVariant i).
std::span<const VariantInfo> variant_registry();
const VariantInfo& variant_info(AttentionVariant v);

std::string_view name(AttentionVariant v);  // "msa", "performer", ..., "fp-ecoformer", ...
std::optional<AttentionVariant> parse_attention_variant(std::string_view text);
/// The variant called `text`; throws ecosim::Error listing the valid names when there is none.
AttentionVariant attention_variant_named(std::string_view text);
std::span<const AttentionVariant> all_attention_variants();
/// The EcoFormer family (EcoFormer and its ablations), which hash tokens to codes.
bool is_hashed(AttentionVariant v);

}  // namespace ecosim
