// Reading a Hugging Face `config.json` (model types: hf_model_types()) as a zoo entry of the
// `decoder` family, so that a config and a zoo entry build through one code path. Nothing is fetched: the file is
// the user's. Policy for fields (ops_counter/README.md, "Decoder LLMs"): the architectural fields are read and
// checked, a listed set known to leave the cost unchanged is ignored, and any other field is an error.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/model_zoo.hpp"

namespace ecosim {

/// The model types read, comma-separated: "llama, mistral, qwen2, qwen3, phi3, gemma, gpt2, gpt_neox".
std::string hf_model_types();

/// The `decoder` zoo entry of a parsed config.json; `origin` names the file in errors. Throws ecosim::Error
/// naming the field for an unknown model_type or activation, a missing field, or a field not modelled.
nlohmann::json decoder_entry_from_hf_config(const nlohmann::json& config, const std::string& origin);

/// The name of the model of the config file at `path` in its zoo: the path (prefixed by "./" when it starts with
/// '_', which would make it a zoo comment).
std::string hf_config_model_name(const std::string& path);

/// A zoo holding one model, hf_config_model_name(path): the config.json at `path` (read whole, at most
/// kMaxJsonDocumentBytes).
ModelZoo hf_config_zoo(const std::string& path);

}  // namespace ecosim
