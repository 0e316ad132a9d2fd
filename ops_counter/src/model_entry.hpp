// Internal: typed, checked access to one resolved model-zoo entry, and the per-family builders.
#pragma once
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/model_zoo.hpp"

namespace ecosim::detail {

/// Blocks per stage (vision) or encoder layers (LRA) beyond this are no published model (the largest has 40).
inline constexpr std::uint64_t kMaxBlocks = 256;

class ModelEntry;

/// A family of zoo models: its name (the zoo key `family`), every key its entries may have besides `family`,
/// `extends` and `_` comments (a key outside them is an error: a misspelling must not count as the default), and
/// its builder, which reads no other key.
struct ModelFamily {
  std::string_view name;
  std::span<const std::string_view> keys;
  std::vector<Layer> (*build)(const ModelEntry& e, const ModelOptions& o);
  /// The figures of a decoder (decoder.hpp); null for the other families.
  DecoderFacts (*facts)(const ModelEntry& e, const ModelOptions& o) = nullptr;
};
extern const ModelFamily kHierarchicalVitFamily, kVitFamily, kSwinFamily, kLraFamily, kEncoderFamily, kDecoderFamily,
    kResnetFamily, kVggFamily;

class ModelEntry {
 public:
  ModelEntry(std::string model, const nlohmann::json& j, const ModelFamily& family)
      : model_(std::move(model)), j_(j), family_(family) {}
  const std::string& model() const { return model_; }
  std::uint64_t uint(const std::string& key) const;
  /// uint(key), at most `max`.
  std::uint64_t uint(const std::string& key, std::uint64_t max) const;
  bool flag(const std::string& key) const;
  bool has(const std::string& key) const;
  /// A string value of `key`, one of `allowed`.
  std::string text(const std::string& key, std::span<const std::string_view> allowed) const;
  /// A number in (0, 1].
  double fraction(const std::string& key) const;
  /// How errors name `key`: 'key', or for an entry made from another file's fields (a Hugging Face config, which
  /// maps them in the comment key `_fields`), that file's field, e.g. 'num_key_value_heads'.
  std::string field(const std::string& key) const;
  /// An array of `size` non-negative integers (any size when 0), each at most `max`.
  std::vector<std::uint64_t> uints(const std::string& key, std::size_t size,
                                   std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
  /// The attention variants named by `key` (an array of variant names).
  std::vector<AttentionVariant> variants(const std::string& key) const;

 private:
  /// The entry's value of `key` (null when absent); throws when `key` is not one of the family's keys.
  const nlohmann::json* value(const std::string& key) const;

  std::string model_;
  const nlohmann::json& j_;
  const ModelFamily& family_;
};

/// Where a block's tokens come from: a grid (vision models; `sr_ratio` of the model's spatial-reduction
/// attention, `window` of its locally-grouped attention) or a sequence (0: SRA / LSA are not defined).
struct TokenLayout {
  std::uint64_t grid_height = 0, sr_ratio = 0, window = 0;
};

/// The attention layer of a block: the chosen variant, or MSA for the stages listed in msa_stages.
AttentionConfig block_attention(const ModelOptions& o, bool keep_msa, std::uint64_t tokens, std::uint64_t heads,
                                std::uint64_t head_dim, std::uint64_t width, TokenLayout layout);

/// Head width = width / heads; throws when heads do not divide the width.
std::uint64_t head_width(const ModelEntry& e, std::uint64_t width, std::uint64_t heads);

/// The model's own attention variants (zoo key native_attention) under --attention native, else none.
std::vector<AttentionVariant> native_variants(const ModelEntry& e, const ModelOptions& o);
/// The options of the `index`-th block of a stage: under --attention native, its variant is the index-th of
/// `native`, cycled.
ModelOptions block_options(const ModelOptions& o, const std::vector<AttentionVariant>& native, std::uint64_t index);

/// Input height = width of an image model: the resolution option or the entry's image_size. Throws for a
/// sequence length, and for a size that is not a multiple of `total_stride` or above 16384.
std::uint64_t image_size(const ModelEntry& e, const ModelOptions& o, std::uint64_t total_stride);
/// Tokens of a sequence model: the seq_len option or the entry's seq_len. Throws for a resolution.
std::uint64_t sequence_length(const ModelEntry& e, const ModelOptions& o);
/// sequence_length of a model with a learned position table (a row per position of its own seq_len): throws for
/// a longer sequence, which it has no positions for.
std::uint64_t learned_sequence_length(const ModelEntry& e, const ModelOptions& o);
/// The learned tables a sequence model's input is looked up in, `width` wide: the token table (vocab_size rows)
/// and the position table (a row per position of the model's own seq_len, whatever length is counted).
std::uint64_t token_and_position_tables(const ModelEntry& e, std::uint64_t width);

/// Non-overlapping patch embedding of a size × size image (the entry's in_chans) to `width` channels.
Conv2d patch_embedding(const ModelEntry& e, const ModelOptions& o, std::uint64_t size, std::uint64_t patch,
                       std::uint64_t width);
/// Depthwise 3×3 convolution, stride 1, padding 1, over an h × w grid of `channels` (PVTv2's MLP conv, PEG).
Conv2d depthwise_3x3(std::uint64_t batch, std::uint64_t channels, std::uint64_t h, std::uint64_t w);

/// What distinguishes one family's transformer block from another's.
struct BlockParts {
  AttentionConfig attention;
  std::vector<Layer> score_adds = {};  // additions to the attention scores (relative position bias, shift mask)
  std::vector<Layer> mlp_inner = {};   // between fc1 and GELU (PVTv2's ReLU and depthwise conv)
  bool post_norm = false;              // LN(x + Attn(x)), LN(x + MLP(x)) (BERT) instead of pre-norm
  bool dropout = false;                // training: dropout on the attention and MLP outputs (and probabilities)
};
/// Appends a block named "<block>.<part>" over `rows` tokens of `width` with MLP width `hidden`: pre-norm
/// x + Attn(LN(x)), x + MLP(LN(x)) with MLP = fc1, mlp_inner, GELU, fc2; or the post-norm form.
void append_block(std::vector<Layer>& layers, const std::string& block, std::uint64_t rows, std::uint64_t width,
                  std::uint64_t hidden, const BlockParts& parts);

}  // namespace ecosim::detail
