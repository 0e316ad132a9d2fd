// A Hugging Face config.json as a `decoder` zoo entry: each model type's fields renamed to the family's keys (the
// renaming kept in the entry's `_fields`, so that the builder's errors name the config's fields), its fixed
// architecture (norm, MLP, positions, biases) filled in, Hugging Face's documented defaults applied to the optional
// fields, and every other field either on the list known to leave the cost unchanged or refused.
#include "ecosim/ops_counter/hf_config.hpp"

#include <algorithm>
#include <array>
#include <span>

#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/text_file.hpp"

namespace ecosim {

namespace {

/// How a config gives a field: required (a value); optional (absent or null: the family's default, Hugging Face's
/// num_kv_heads = num_heads, head_dim = hidden_size / num_heads); or named (null takes the family's default, as
/// Hugging Face's null does, but the key must be there: absent, Hugging Face takes the model type's constant, such as
/// Mistral's 8 K/V heads, which ecosim does not guess).
enum class Given { required, optional, named };

/// A family key read from a config field.
struct Field {
  std::string_view key, field;
  Given given = Given::required;
};

struct BoolField {  // a family flag read from a config field, with Hugging Face's default for the model type
  std::string_view key, field;
  bool fallback;
};

struct ModelType {
  std::string_view name;
  std::span<const Field> sizes;
  std::string_view activation_field;
  std::string_view activation_fallback;           // Hugging Face's when the field is absent or null; empty: required
  std::span<const std::string_view> activations;  // the values the family's MLP (`fixed`'s mlp) computes
  std::span<const BoolField> flags;
  std::string_view rotary_field;  // the fraction of each head rotated; empty: the whole head (or no rotary)
  double rotary_fallback = 1.0;   // Hugging Face's default for the field
  const char* fixed;              // the family keys the model type fixes (JSON)
  /// How the type gives num_key_value_heads and head_dim where `sizes` has them optional: Hugging Face's default
  /// for the type is a constant (Mistral's 8 K/V heads: named), or none a config leaves out (required).
  Given kv_heads = Given::optional, head_dim = Given::optional;
};

constexpr Field kLlamaSizes[] = {{"hidden_size", "hidden_size"},
                                 {"num_heads", "num_attention_heads"},
                                 {"num_kv_heads", "num_key_value_heads", Given::optional},
                                 {"head_dim", "head_dim", Given::optional},
                                 {"intermediate_size", "intermediate_size"},
                                 {"layers", "num_hidden_layers"},
                                 {"vocab_size", "vocab_size"},
                                 {"max_position_embeddings", "max_position_embeddings"}};
constexpr Field kGpt2Sizes[] = {{"hidden_size", "n_embd"},
                                {"num_heads", "n_head"},
                                {"layers", "n_layer"},
                                {"vocab_size", "vocab_size"},
                                {"max_position_embeddings", "n_positions"}};  // n_inner: below
constexpr Field kNeoxSizes[] = {{"hidden_size", "hidden_size"},
                                {"num_heads", "num_attention_heads"},
                                {"intermediate_size", "intermediate_size"},
                                {"layers", "num_hidden_layers"},
                                {"vocab_size", "vocab_size"},
                                {"max_position_embeddings", "max_position_embeddings"}};

constexpr std::string_view kSilu[] = {"silu"};
constexpr std::string_view kGelus[] = {"gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh"};

constexpr BoolField kLlamaFlags[] = {{"tie_word_embeddings", "tie_word_embeddings", false},
                                     {"qkv_bias", "attention_bias", false},
                                     {"o_bias", "attention_bias", false},
                                     {"mlp_bias", "mlp_bias", false}};
constexpr BoolField kUntied[] = {{"tie_word_embeddings", "tie_word_embeddings", false}};
constexpr BoolField kTied[] = {{"tie_word_embeddings", "tie_word_embeddings", true}};
constexpr BoolField kGemmaFlags[] = {{"tie_word_embeddings", "tie_word_embeddings", true},
                                     {"qkv_bias", "attention_bias", false},
                                     {"o_bias", "attention_bias", false}};
constexpr BoolField kAttentionBias[] = {{"tie_word_embeddings", "tie_word_embeddings", false},
                                        {"qkv_bias", "attention_bias", false},
                                        {"o_bias", "attention_bias", false}};
constexpr BoolField kNeoxFlags[] = {{"tie_word_embeddings", "tie_word_embeddings", false},
                                    {"parallel_attention", "use_parallel_residual", true},
                                    {"qkv_bias", "attention_bias", true},
                                    {"o_bias", "attention_bias", true}};

const std::array<ModelType, 8> kModelTypes = {{
    {"llama", kLlamaSizes, "hidden_act", "", kSilu, kLlamaFlags, "partial_rotary_factor", 1.0,
     R"({"norm": "rmsnorm", "mlp": "swiglu", "position": "rotary", "parallel_attention": false})"},
    // Hugging Face's K/V heads when absent: Mistral's 8, Qwen2's and Qwen3's 32; Qwen3's head width 128
    {"mistral", kLlamaSizes, "hidden_act", "", kSilu, kUntied, "", 1.0,
     R"({"norm": "rmsnorm", "mlp": "swiglu", "position": "rotary", "parallel_attention": false,
         "qkv_bias": false, "o_bias": false, "mlp_bias": false})",
     Given::named},
    {"qwen2", kLlamaSizes, "hidden_act", "", kSilu, kUntied, "", 1.0,
     R"({"norm": "rmsnorm", "mlp": "swiglu", "position": "rotary", "parallel_attention": false,
         "qkv_bias": true, "o_bias": false, "mlp_bias": false})",
     Given::named},
    {"qwen3", kLlamaSizes, "hidden_act", "", kSilu, kAttentionBias, "", 1.0,
     R"({"norm": "rmsnorm", "mlp": "swiglu", "position": "rotary", "parallel_attention": false,
         "mlp_bias": false, "qk_norm": true})",
     Given::named, Given::required},
    {"phi3", kLlamaSizes, "hidden_act", "", kSilu, kUntied, "partial_rotary_factor", 1.0,
     R"({"norm": "rmsnorm", "mlp": "swiglu", "position": "rotary", "parallel_attention": false,
         "qkv_bias": false, "o_bias": false, "mlp_bias": false})"},
    // Gemma's MLP computes GELU's tanh form whatever hidden_act says (Hugging Face reads hidden_activation); its
    // K/V heads (16) and head width (256) when absent are constants, and a null K/V head count builds no model
    {"gemma", kLlamaSizes, "hidden_activation", "gelu_pytorch_tanh", kGelus, kGemmaFlags, "", 1.0,
     R"({"norm": "gemma_rmsnorm", "mlp": "geglu", "position": "rotary", "parallel_attention": false,
         "mlp_bias": false, "embedding_scale": true})",
     Given::required, Given::required},
    {"gpt2", kGpt2Sizes, "activation_function", "", kGelus, kTied, "", 1.0,
     R"({"norm": "layernorm", "mlp": "gelu", "position": "learned", "parallel_attention": false,
         "qkv_bias": true, "o_bias": true, "mlp_bias": true})"},
    {"gpt_neox", kNeoxSizes, "hidden_act", "", kGelus, kNeoxFlags, "rotary_pct", 0.25,
     R"({"norm": "layernorm", "mlp": "gelu", "position": "rotary", "mlp_bias": true})"},
}};

/// Fields known to leave the counted work unchanged: names, token ids, numerics (epsilons, dtypes, rotary bases,
/// initialisation, dropout), caching switches, GPT-2's summary head (not part of the LM) and n_ctx (= n_positions).
constexpr std::string_view kIgnoredFields[] = {"_name_or_path",
                                               "architectures",
                                               "auto_map",
                                               "bos_token_id",
                                               "eos_token_id",
                                               "pad_token_id",
                                               "torch_dtype",
                                               "dtype",
                                               "transformers_version",
                                               "use_cache",
                                               "initializer_range",
                                               "rms_norm_eps",
                                               "layer_norm_eps",
                                               "layer_norm_epsilon",
                                               "rope_theta",
                                               "rotary_emb_base",
                                               "attention_dropout",
                                               "hidden_dropout",
                                               "attn_pdrop",
                                               "embd_pdrop",
                                               "resid_pdrop",
                                               "summary_activation",
                                               "summary_first_dropout",
                                               "summary_proj_to_labels",
                                               "summary_type",
                                               "summary_use_proj",
                                               "task_specific_params",
                                               "n_ctx",
                                               "reorder_and_upcast_attn",
                                               "pretraining_tp",
                                               "classifier_dropout",
                                               "n_special",
                                               "predict_special_tokens",
                                               "tokenizer_class",
                                               "use_flash_attn",
                                               "original_max_position_embeddings"};

/// rope_scaling types: each changes the rotation angles only, never the work (Phi-3's longrope, formerly su, picks
/// one of two factor lists by the context).
constexpr std::string_view kRopeScalings[] = {"linear", "dynamic", "llama3", "yarn", "default", "longrope", "su"};
/// The keys of those scalings' objects (and transformers 5's rope_parameters): angles only.
constexpr std::string_view kRopeAngleKeys[] = {"rope_type",        "type",
                                               "rope_theta",       "factor",
                                               "low_freq_factor",  "high_freq_factor",
                                               "short_factor",     "long_factor",
                                               "beta_fast",        "beta_slow",
                                               "attention_factor", "mscale",
                                               "mscale_all_dim",   "original_max_position_embeddings",
                                               "short_mscale",     "long_mscale",
                                               "truncate"};

std::string names(std::span<const std::string_view> list) {
  std::string s;
  for (std::string_view n : list) s += fmt::format("{}{}", s.empty() ? "" : ", ", n);
  return s;
}

bool present(const nlohmann::json& config, std::string_view field) {
  const auto it = config.find(std::string(field));
  return it != config.end() && !it->is_null();
}

}  // namespace

std::string hf_model_types() {
  std::string s;
  for (const ModelType& t : kModelTypes) s += fmt::format("{}{}", s.empty() ? "" : ", ", t.name);
  return s;
}

nlohmann::json decoder_entry_from_hf_config(const nlohmann::json& config, const std::string& origin) {
  const auto fail = [&origin](const std::string& what) { throw Error(origin + ": " + what); };
  if (!config.is_object()) fail("a Hugging Face config.json must be a JSON object");
  if (!present(config, "model_type") || !config["model_type"].is_string())
    fail("missing field 'model_type' (a string: " + hf_model_types() + ")");
  const std::string model_type = config["model_type"].get<std::string>();
  const auto type =
      std::find_if(kModelTypes.begin(), kModelTypes.end(), [&](const ModelType& t) { return t.name == model_type; });
  if (type == kModelTypes.end())
    fail(fmt::format("field 'model_type': '{}' is not modelled (known: {})", model_type, hf_model_types()));

  nlohmann::json entry = nlohmann::json::parse(type->fixed);
  entry["family"] = "decoder";
  entry["native_attention"] = {"msa"};
  nlohmann::json fields = nlohmann::json::object();
  std::vector<std::string_view> read{"model_type"};
  // absent, a field Hugging Face defaults to the type's own constant (`what`: what to give instead)
  const auto unguessed = [&](std::string_view field, std::string_view what) {
    fail(
        fmt::format("missing field '{}' (model_type {}: absent, Hugging Face takes the type's own constant, which "
                    "ecosim does not guess; give {})",
                    field, model_type, what));
  };
  for (const Field& f : type->sizes) {
    read.push_back(f.field);
    fields[std::string(f.key)] = f.field;
    const Given given = f.given != Given::optional ? f.given
                        : f.key == "num_kv_heads"  ? type->kv_heads
                        : f.key == "head_dim"      ? type->head_dim
                                                   : f.given;
    if (present(config, f.field))
      entry[std::string(f.key)] = config[std::string(f.field)];
    else if (given == Given::required)
      fail(fmt::format("missing field '{}' (model_type {})", f.field, model_type));
    else if (given == Given::named && !config.contains(std::string(f.field)))
      unguessed(f.field, "the value, or null for its default");
  }
  if (model_type == "gpt2") {  // n_inner: null means 4 · n_embd
    read.push_back("n_inner");
    fields["intermediate_size"] = "n_inner";
    if (present(config, "n_inner"))
      entry["intermediate_size"] = config["n_inner"];
    else if (config["n_embd"].is_number_unsigned() && config["n_embd"].get<std::uint64_t>() < (std::uint64_t{1} << 60))
      entry["intermediate_size"] = 4 * config["n_embd"].get<std::uint64_t>();
    else
      entry["intermediate_size"] = config["n_embd"];  // refused with the field's name by the builder
    read.push_back("add_cross_attention");
    if (present(config, "add_cross_attention") && config["add_cross_attention"] != false)
      fail("field 'add_cross_attention': cross-attention is not modelled (a decoder-only LM has none)");
  }

  read.push_back(type->activation_field);
  if (!present(config, type->activation_field) && type->activation_fallback.empty())
    fail(fmt::format("missing field '{}' (model_type {})", type->activation_field, model_type));
  // an activation field's value: one of the functions the family's MLP computes
  const auto check_activation = [&](std::string_view field, const nlohmann::json& act) {
    if (!act.is_string() || std::find(type->activations.begin(), type->activations.end(), act.get<std::string>()) ==
                                type->activations.end())
      fail(fmt::format("field '{}': {} is not modelled for model_type {} (known: {})", field, act.dump(), model_type,
                       names(type->activations)));
  };
  check_activation(type->activation_field, present(config, type->activation_field)
                                               ? config[std::string(type->activation_field)]
                                               : nlohmann::json(type->activation_fallback));

  for (const BoolField& f : type->flags) {
    read.push_back(f.field);
    fields[std::string(f.key)] = f.field;
    entry[std::string(f.key)] = present(config, f.field) ? config[std::string(f.field)] : nlohmann::json(f.fallback);
  }
  if (!type->rotary_field.empty()) {
    read.push_back(type->rotary_field);
    fields["rotary_fraction"] = type->rotary_field;
    entry["rotary_fraction"] = present(config, type->rotary_field) ? config[std::string(type->rotary_field)]
                                                                   : nlohmann::json(type->rotary_fallback);
  }

  // rope_scaling, or transformers 5's rope_parameters (rope_theta and the scaling in one object)
  for (std::string_view rope : {"rope_scaling", "rope_parameters"}) {
    read.push_back(rope);
    if (!present(config, rope)) continue;
    const nlohmann::json& r = config[std::string(rope)];
    const auto kind = r.is_object() ? r.find(r.contains("rope_type") ? "rope_type" : "type") : r.end();
    const bool absent_kind = rope == "rope_parameters" && r.is_object() && kind == r.end();  // its default
    if (!absent_kind && (!r.is_object() || kind == r.end() || !kind->is_string() ||
                         std::find(std::begin(kRopeScalings), std::end(kRopeScalings), kind->get<std::string>()) ==
                             std::end(kRopeScalings)))
      fail(fmt::format("field '{}': {} is not a known scaling (known: {}; each changes the angles only)", rope,
                       r.dump(), names(kRopeScalings)));
    for (const auto& [key, value] : r.items())  // a key that may change the work (a rotated fraction) is not read
      if (std::find(std::begin(kRopeAngleKeys), std::end(kRopeAngleKeys), key) == std::end(kRopeAngleKeys))
        fail(
            fmt::format("field '{}.{}' is not one ecosim reads (only the angles' keys: {}); refused rather than "
                        "ignored",
                        rope, key, names(kRopeAngleKeys)));
  }
  if (model_type == "gpt_neox") {  // saved by transformers >= 4.4x beside rotary_pct (the same fraction)
    read.push_back("partial_rotary_factor");
    if (present(config, "partial_rotary_factor")) {
      if (present(config, "rotary_pct") && config["partial_rotary_factor"] != config["rotary_pct"])
        fail(fmt::format("fields 'partial_rotary_factor' ({}) and 'rotary_pct' ({}) disagree",
                         config["partial_rotary_factor"].dump(), config["rotary_pct"].dump()));
      entry["rotary_fraction"] = config["partial_rotary_factor"];
      fields["rotary_fraction"] = "partial_rotary_factor";
    }
  }
  if (model_type == "gpt2") {  // the scores' scaling: 1/√d on each (the default), and no other
    read.insert(read.end(), {"scale_attn_weights", "scale_attn_by_inverse_layer_idx"});
    if (present(config, "scale_attn_weights") && config["scale_attn_weights"] != true)
      fail("field 'scale_attn_weights': unscaled scores are not modelled (the count divides each score by √d)");
    if (present(config, "scale_attn_by_inverse_layer_idx") && config["scale_attn_by_inverse_layer_idx"] != false)
      fail(
          "field 'scale_attn_by_inverse_layer_idx': a second division of each score (by the layer's index) is not "
          "modelled");
  }
  if (model_type == "gemma") {  // read by older versions only, and only a GELU: the MLP's function either way
    read.push_back("hidden_act");
    if (present(config, "hidden_act")) check_activation("hidden_act", config["hidden_act"]);
  }
  // Hugging Face's Phi-3 builds no biases and Qwen3 no MLP biases, whatever these say: a true one is not that model
  const std::vector<std::string_view> no_biases =
      model_type == "phi3"    ? std::vector<std::string_view>{"attention_bias", "mlp_bias", "lm_head_bias"}
      : model_type == "qwen3" ? std::vector<std::string_view>{"mlp_bias"}
                              : std::vector<std::string_view>{};
  for (std::string_view f : no_biases) {
    read.push_back(f);
    if (present(config, f) && config[std::string(f)] != false)
      fail(fmt::format("field '{}': biases there are not modelled for model_type {} (its layers have none)", f,
                       model_type));
  }
  if (model_type == "mistral" || model_type == "phi3") {
    read.push_back("sliding_window");
    fields["sliding_window"] = "sliding_window";
    if (model_type == "mistral" && !config.contains("sliding_window"))  // absent: Hugging Face's 4096; null: none
      unguessed("sliding_window", "the window, or null for none");
    if (present(config, "sliding_window")) {  // its own attention: each token over the window ending at it
      entry["sliding_window"] = config["sliding_window"];
      entry["native_attention"] = {"sliding"};
    }
  }
  if (model_type == "qwen2" || model_type == "qwen3") {
    // the window applies only with use_sliding_window (to some layers): not modelled
    read.insert(read.end(), {"sliding_window", "use_sliding_window", "max_window_layers", "layer_types"});
    if (present(config, "use_sliding_window") && config["use_sliding_window"] != false)
      fail(fmt::format("field 'use_sliding_window': sliding-window attention in some of {}'s layers is not modelled",
                       model_type));
    if (present(config, "layer_types") && (!config["layer_types"].is_array() ||
                                           std::any_of(config["layer_types"].begin(), config["layer_types"].end(),
                                                       [](const nlohmann::json& t) { return t != "full_attention"; })))
      fail("field 'layer_types': only full_attention layers are modelled");
  }

  for (const auto& [field, value] : config.items()) {
    const bool known =
        std::find(read.begin(), read.end(), field) != read.end() ||
        std::find(std::begin(kIgnoredFields), std::end(kIgnoredFields), field) != std::end(kIgnoredFields);
    if (!known)
      fail(
          fmt::format("field '{}' is not one ecosim reads for model_type {}, nor one known to leave the cost "
                      "unchanged (ops_counter/README.md, Decoder LLMs): refused rather than ignored",
                      field, model_type));
  }
  entry["_fields"] = fields;
  return entry;
}

std::string hf_config_model_name(const std::string& path) { return path.starts_with('_') ? "./" + path : path; }

ModelZoo hf_config_zoo(const std::string& path) {
  const nlohmann::json config = parse_json(read_text_file(path, kMaxJsonDocumentBytes), path);
  nlohmann::json zoo = nlohmann::json::object();
  zoo[hf_config_model_name(path)] = decoder_entry_from_hf_config(config, path);
  return ModelZoo::parse(zoo.dump(), path);
}

}  // namespace ecosim
