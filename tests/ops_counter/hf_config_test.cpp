// Hugging Face config.json reading: hostile configs (zero or negative sizes, heads not dividing, unknown model types
// and activations, absurd depths and contexts, missing and unknown fields) are errors naming the config's field.
#include <catch2/catch.hpp>
#include <fstream>

#include "../unique_temp_path.hpp"
#include "ecosim/ops_counter/hf_config.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"

using namespace ecosim;

namespace {

/// Llama-3-8B's architectural fields, with `changes` merged over them (a null value removes the field).
nlohmann::json llama(const nlohmann::json& changes = nlohmann::json::object()) {
  nlohmann::json c = {{"model_type", "llama"},      {"hidden_size", 4096},
                      {"num_attention_heads", 32},  {"num_key_value_heads", 8},
                      {"intermediate_size", 14336}, {"num_hidden_layers", 32},
                      {"vocab_size", 128256},       {"max_position_embeddings", 8192},
                      {"hidden_act", "silu"},       {"tie_word_embeddings", false}};
  for (const auto& [k, v] : changes.items()) {
    if (v.is_null())
      c.erase(k);
    else
      c[k] = v;
  }
  return c;
}

/// The error building the config's model (prefill of `seq` tokens; 0 = its default), or "" when it builds.
std::string error_of(const nlohmann::json& config, std::uint64_t seq = 16) {
  try {
    nlohmann::json zoo = nlohmann::json::object();
    zoo["c.json"] = decoder_entry_from_hf_config(config, "c.json");
    ModelOptions o;
    o.phase.phase = Phase::prefill;
    o.seq_len = seq;
    (void)ModelZoo::parse(zoo.dump(), "c.json").build("c.json", o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a valid config builds, with Hugging Face defaults for the optional fields") {
  CHECK(error_of(llama()).empty());
  CHECK(error_of(llama({{"num_key_value_heads", nullptr}})).empty());  // MHA: kv heads = heads
  CHECK(error_of(llama({{"rope_scaling", {{"rope_type", "llama3"}, {"factor", 8.0}}}})).empty());
  CHECK(error_of(llama({{"rms_norm_eps", 1e-6}, {"rope_theta", 5e5}, {"torch_dtype", "bfloat16"}})).empty());
}

TEST_CASE("a field whose Hugging Face default is the type's own constant must be named (null: the family default)") {
  // Mistral's absent num_key_value_heads is 8 and absent sliding_window 4096 in Hugging Face; Qwen2's and Qwen3's
  // K/V heads 32, Gemma's 16: never the query heads that ecosim's optional fields default to
  const std::string guess = ": absent, Hugging Face takes the type's own constant, which ecosim does not guess; give ";
  nlohmann::json mistral = llama({{"model_type", "mistral"}, {"sliding_window", 4096}});
  CHECK(error_of(mistral).empty());
  CHECK(error_of(llama({{"model_type", "mistral"}, {"sliding_window", 4096}, {"num_key_value_heads", nullptr}})) ==
        "c.json: missing field 'num_key_value_heads' (model_type mistral" + guess +
            "the value, or null for its default)");
  CHECK(error_of(llama({{"model_type", "mistral"}})) ==
        "c.json: missing field 'sliding_window' (model_type mistral" + guess + "the window, or null for none)");
  mistral["num_key_value_heads"] = nullptr;  // null: as many as the query heads, as Hugging Face's null
  mistral["sliding_window"] = nullptr;       // null: no window
  CHECK(error_of(mistral).empty());
  const nlohmann::json entry = decoder_entry_from_hf_config(mistral, "c.json");
  CHECK_FALSE(entry.contains("num_kv_heads"));
  CHECK_FALSE(entry.contains("sliding_window"));
  CHECK(entry["native_attention"] == nlohmann::json{"msa"});
  for (const char* type : {"qwen2", "qwen3"}) {
    CAPTURE(type);
    const nlohmann::json c = llama({{"model_type", type}, {"head_dim", 128}, {"num_key_value_heads", nullptr}});
    CHECK(error_of(c) == "c.json: missing field 'num_key_value_heads' (model_type " + std::string(type) + guess +
                             "the value, or null for its default)");
  }
  // Gemma's: 16 when absent, and a null one builds no model in Hugging Face: required
  CHECK(error_of(llama({{"model_type", "gemma"}, {"head_dim", 256}, {"num_key_value_heads", nullptr}})) ==
        "c.json: missing field 'num_key_value_heads' (model_type gemma)");
  // Llama's and Phi-3's absent K/V heads are the query heads in Hugging Face too
  CHECK(error_of(llama({{"model_type", "phi3"}, {"num_key_value_heads", nullptr}})).empty());
}

TEST_CASE("Qwen3, Phi-3 and Gemma configs: their own fields read, the rest refused") {
  // Qwen3: llama's fields, an explicit head width, per-head q/k norms; only full-attention layers
  const nlohmann::json qwen3 = llama({{"model_type", "qwen3"}, {"head_dim", 128}, {"use_sliding_window", false}});
  CHECK(error_of(qwen3).empty());
  CHECK(error_of(llama({{"model_type", "qwen3"}})) == "c.json: missing field 'head_dim' (model_type qwen3)");
  nlohmann::json layered = qwen3;
  layered["layer_types"] = {"full_attention", "sliding_attention"};
  CHECK(error_of(layered) == "c.json: field 'layer_types': only full_attention layers are modelled");
  layered["layer_types"] = {"full_attention"};
  CHECK(error_of(layered).empty());
  // Phi-3: longrope angles accepted, its window its own attention, biases it does not build refused
  const nlohmann::json phi3 = llama({{"model_type", "phi3"}, {"sliding_window", 2047}});
  CHECK(error_of(llama({{"model_type", "phi3"}, {"rope_scaling", {{"type", "longrope"}}}})).empty());
  CHECK(decoder_entry_from_hf_config(phi3, "c.json")["native_attention"] == nlohmann::json{"sliding"});
  nlohmann::json biased = phi3;
  biased["attention_bias"] = true;
  CHECK(error_of(biased) ==
        "c.json: field 'attention_bias': biases there are not modelled for model_type phi3 (its layers have none)");
  // Qwen3's MLP has no biases in Hugging Face whatever mlp_bias says (its attention's follow attention_bias)
  nlohmann::json qwen3_mlp_bias = qwen3;
  qwen3_mlp_bias["mlp_bias"] = true;
  CHECK(error_of(qwen3_mlp_bias) ==
        "c.json: field 'mlp_bias': biases there are not modelled for model_type qwen3 (its layers have none)");
  qwen3_mlp_bias["mlp_bias"] = false;
  CHECK(decoder_entry_from_hf_config(qwen3_mlp_bias, "c.json")["mlp_bias"] == false);
  // Gemma: GELU's tanh form by default, whatever hidden_act says as long as it is a GELU
  const nlohmann::json gemma =
      llama({{"model_type", "gemma"}, {"head_dim", 256}, {"hidden_act", "gelu"}, {"tie_word_embeddings", nullptr}});
  CHECK(error_of(gemma).empty());
  const nlohmann::json entry = decoder_entry_from_hf_config(gemma, "c.json");
  CHECK(entry["mlp"] == "geglu");
  CHECK(entry["tie_word_embeddings"] == true);  // Hugging Face's default for Gemma
  nlohmann::json relu = gemma;
  relu["hidden_act"] = "relu";
  CHECK(error_of(relu) ==
        "c.json: field 'hidden_act': \"relu\" is not modelled for model_type gemma (known: gelu, gelu_new, gelu_fast, "
        "gelu_pytorch_tanh)");
  relu = gemma;
  relu["hidden_activation"] = "relu";
  CHECK(error_of(relu) ==
        "c.json: field 'hidden_activation': \"relu\" is not modelled for model_type gemma (known: gelu, gelu_new, "
        "gelu_fast, gelu_pytorch_tanh)");
  // a later Gemma is another model: refused by name
  CHECK(error_of(llama({{"model_type", "gemma2"}})) ==
        "c.json: field 'model_type': 'gemma2' is not modelled (known: llama, mistral, qwen2, qwen3, phi3, gemma, gpt2, "
        "gpt_neox)");
}

TEST_CASE("configs saved by newer transformers read as the older fields they restate") {
  // transformers 5: dtype for torch_dtype, rope_parameters holding rope_theta and the scaling
  CHECK(error_of(llama({{"dtype", "bfloat16"}, {"rope_parameters", {{"rope_theta", 5e5}, {"rope_type", "llama3"}}}}))
            .empty());
  CHECK(error_of(llama({{"rope_parameters", {{"rope_theta", 1e4}}}})).empty());  // no rope_type: the default
  // a key there that may change the work (the rotated fraction) is refused, not ignored
  CHECK(error_of(llama({{"rope_parameters", {{"rope_theta", 1e4}, {"partial_rotary_factor", 0.5}}}}))
            .starts_with("c.json: field 'rope_parameters.partial_rotary_factor' is not one ecosim reads"));
  CHECK(error_of(llama({{"rope_parameters", {{"rope_type", "spiral"}}}}))
            .starts_with("c.json: field 'rope_parameters': {\"rope_type\":\"spiral\"} is not a known scaling"));
  // GPT-NeoX re-saved by transformers >= 4.4x: partial_rotary_factor beside rotary_pct, the same fraction
  nlohmann::json neox = {{"model_type", "gpt_neox"},        {"hidden_size", 2048},     {"num_attention_heads", 16},
                         {"intermediate_size", 8192},       {"num_hidden_layers", 24}, {"vocab_size", 50304},
                         {"max_position_embeddings", 2048}, {"hidden_act", "gelu"},    {"rotary_pct", 0.25}};
  const nlohmann::json before = decoder_entry_from_hf_config(neox, "c.json");
  neox["partial_rotary_factor"] = 0.25;
  CHECK(decoder_entry_from_hf_config(neox, "c.json")["rotary_fraction"] == before["rotary_fraction"]);
  neox.erase("rotary_pct");
  CHECK(decoder_entry_from_hf_config(neox, "c.json")["rotary_fraction"] == 0.25);
  neox["rotary_pct"] = 0.5;
  CHECK(error_of(neox) == "c.json: fields 'partial_rotary_factor' (0.25) and 'rotary_pct' (0.5) disagree");
}

TEST_CASE("GPT-2's score scaling other than 1/sqrt(d) is refused, not ignored") {
  const nlohmann::json gpt2 = {{"model_type", "gpt2"},
                               {"n_embd", 768},
                               {"n_head", 12},
                               {"n_layer", 12},
                               {"vocab_size", 50257},
                               {"n_positions", 1024},
                               {"activation_function", "gelu_new"}};
  CHECK(error_of(gpt2).empty());
  nlohmann::json c = gpt2;
  c["scale_attn_weights"] = true;
  c["scale_attn_by_inverse_layer_idx"] = false;
  CHECK(error_of(c).empty());
  c["scale_attn_by_inverse_layer_idx"] = true;
  CHECK(error_of(c).starts_with("c.json: field 'scale_attn_by_inverse_layer_idx': a second division"));
  c = gpt2;
  c["scale_attn_weights"] = false;
  CHECK(error_of(c).starts_with("c.json: field 'scale_attn_weights': unscaled scores are not modelled"));
}

TEST_CASE("hostile configs are errors naming the field") {
  struct Case {
    nlohmann::json config;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {llama({{"hidden_size", 0}}), "'hidden_size' must be a positive integer"},
      {llama({{"num_attention_heads", -32}}), "'num_attention_heads' must be a positive integer, got -32"},
      {llama({{"intermediate_size", 1.5}}), "'intermediate_size' must be a positive integer"},
      {llama({{"vocab_size", "many"}}), "'vocab_size' must be a positive integer"},
      {llama({{"hidden_size", 4100}}), "'hidden_size' (4100) is not divisible by 'num_attention_heads' (32)"},
      {llama({{"num_key_value_heads", 7}}), "'num_key_value_heads' (7) must divide 'num_attention_heads' (32)"},
      {llama({{"hidden_act", "relu6"}}), "field 'hidden_act': \"relu6\" is not modelled for model_type llama"},
      {llama({{"model_type", "mamba"}}), "field 'model_type': 'mamba' is not modelled"},
      {llama({{"model_type", nullptr}}), "missing field 'model_type'"},
      {llama({{"num_hidden_layers", nullptr}}), "missing field 'num_hidden_layers' (model_type llama)"},
      {llama({{"num_hidden_layers", 1000000000}}), "'num_hidden_layers' must be at most 256, got 1000000000"},
      {llama({{"max_position_embeddings", 1000000000000}}), "'max_position_embeddings' must be at most 16777216"},
      {llama({{"vocab_size", 1000000000000}}), "'vocab_size' must be at most"},
      {llama({{"hidden_size", 4294967296}}), "'hidden_size' must be at most 1048576"},
      {llama({{"head_dim", 0}}), "'head_dim' must be a positive integer"},
      {llama({{"partial_rotary_factor", 0.3}}), "'partial_rotary_factor' · head width (128) must be an even whole"},
      {llama({{"tie_word_embeddings", "yes"}}), "'tie_word_embeddings' must be true or false"},
      {llama({{"rope_scaling", {{"rope_type", "mystery"}}}}), "field 'rope_scaling'"},
      {llama({{"num_experts", 8}}), "field 'num_experts' is not one ecosim reads"},
      {llama({{"model_type", "qwen2"}, {"use_sliding_window", true}}), "field 'use_sliding_window'"},
      {llama({{"model_type", "mistral"}, {"sliding_window", 4}}), "exceeds 'sliding_window' (4)"},
      {{{"model_type", "gpt2"},
        {"n_embd", 768},
        {"n_head", 12},
        {"n_layer", 12},
        {"n_positions", 1024},
        {"vocab_size", 50257},
        {"activation_function", "gelu_new"},
        {"add_cross_attention", true}},
       "field 'add_cross_attention'"},
      {{{"model_type", "gpt2"},
        {"n_embd", -768},
        {"n_head", 12},
        {"n_layer", 12},
        {"n_positions", 1024},
        {"vocab_size", 50257},
        {"activation_function", "gelu_new"}},
       "'n_embd' must be a positive integer"},
      {{{"model_type", "gpt_neox"},
        {"hidden_size", 2048},
        {"num_attention_heads", 16},
        {"num_hidden_layers", 24},
        {"intermediate_size", 8192},
        {"vocab_size", 50304},
        {"max_position_embeddings", 2048},
        {"hidden_act", "gelu"},
        {"rotary_pct", 1.5}},
       "'rotary_pct' must be a number in (0, 1]"},
      {nlohmann::json::array(), "must be a JSON object"},
  };
  for (const Case& c : cases) {
    INFO(c.config.dump());
    CHECK_THAT(error_of(c.config), Catch::Contains(c.expected));
  }
  // a 10¹²-token context is refused before any work: it exceeds the model's positions
  CHECK_THAT(error_of(llama(), 1000000000000),
             Catch::Contains("a context of 1000000000000 tokens exceeds 'max_position_embeddings' (8192)"));
}

TEST_CASE("hf_config_zoo reads the file and names it in errors") {
  const auto path = unique_temp_path("hf_config", ".json");
  std::ofstream(path) << R"({"model_type": "llama", "hidden_size": 64)";
  CHECK_THROWS_WITH(hf_config_zoo(path.string()), Catch::Contains(path.string()) && Catch::Contains("not valid JSON"));
  std::ofstream(path) << llama({{"hidden_act", "gelu"}}).dump();
  CHECK_THROWS_WITH(hf_config_zoo(path.string()), Catch::StartsWith(path.string() + ": field 'hidden_act'"));
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(hf_config_zoo(path.string()), Catch::Contains(path.string()));
}
