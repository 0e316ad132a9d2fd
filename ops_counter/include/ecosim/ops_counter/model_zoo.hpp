// ModelZoo: whole networks (PVTv2 b0–b5 and b2_li, Twins-SVT, DeiT/ViT, Swin, LRA, BERT, GPT-2, decoder LLMs) built as
// layer lists from the hyper-parameters in ops_counter/data/model_zoo.json (or a user's zoo file), for a chosen
// attention variant and input size.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/decoder.hpp"
#include "ecosim/ops_counter/layers.hpp"

namespace ecosim {

struct ModelOptions {
  AttentionConfig attention;  // variant and its parameters (bits, support, features, ...); shapes are ignored
  std::uint64_t batch = 1;
  std::uint64_t resolution = 0;   // image models: input height = width; 0 = the model's image_size
  std::uint64_t seq_len = 0;      // sequence models; 0 = the model's seq_len
  bool native_attention = false;  // the model's own attention (zoo key native_attention) instead of `attention`
  DecoderPhase phase;             // decoder models: prefill or decode, KV-cache and weight types
};

class ModelZoo {
 public:
  static ModelZoo builtin();
  static ModelZoo parse(std::string_view json_text, const std::string& origin);
  /// The zoo file at `path` (read whole, at most kMaxJsonDocumentBytes); throws ecosim::Error naming the file.
  static ModelZoo load(const std::string& path);
  /// This zoo's models over `base`'s: a name in both is this zoo's entry, and `extends` may name either's.
  /// Throws when one of this zoo's models does not resolve (an unknown key, family or base model).
  ModelZoo overlaying(const ModelZoo& base) const;

  std::vector<std::string> names() const;
  /// Layers of `model` in execution order; throws ecosim::Error for an unknown model (listing the valid
  /// ones), a bad option (resolution not a multiple of the total stride, ...) or a bad zoo entry.
  std::vector<Layer> build(const std::string& model, const ModelOptions& options) const;
  /// A decoder model's parameters, KV-cache bytes and traffic and MACs for `options` (decoder.hpp); none for a
  /// model of another family. Throws as build() does.
  std::optional<DecoderFacts> decoder_facts(const std::string& model, const ModelOptions& options) const;
  /// `model`'s entry merged over the entries it extends (its hyper-parameters as data, for a tool that builds the
  /// same network elsewhere, e.g. in PyTorch); throws for a circular chain, an unknown family, and a key of any
  /// entry in the chain that its family does not have ("<file>: <model>.<key>: unknown key …").
  nlohmann::json resolved(const std::string& model) const;
  /// `model`, then the model it extends, and so on; throws for an unknown model or a circular chain.
  std::vector<std::string> extends_chain(const std::string& model) const;

 private:
  /// The entry of `model` (an object); throws for an unknown model, listing the valid ones.
  const nlohmann::json& entry(const std::string& model) const;

  nlohmann::json entries_;
  std::map<std::string, std::string> origins_;  // model name → the file (or "builtin model_zoo.json") defining it
};

/// True for the attention layers (those counted under --scope attention, projections included).
bool is_attention(const Layer& layer);
/// Whether any of `layers` is an attention layer (is_attention): one a variant could replace.
bool has_attention(const std::vector<Layer>& layers);

}  // namespace ecosim
