// Decoder language models (zoo family `decoder`: Llama, Mistral, Qwen2, GPT-2, GPT-NeoX): the inference phase
// counted (a causal prefill of N tokens, or T decode steps over a KV cache holding N), and the figures of a decoder
// that are not op counts — parameters, KV-cache bytes and traffic, weight traffic, matmul MACs per token
// (definitions in ops_counter/README.md, "Decoder LLMs").
#pragma once
#include <cstdint>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/dtype.hpp"

namespace ecosim {

enum class Phase : std::uint8_t {
  model_default,  // a prefill of the model's default length (min(max_position_embeddings, sliding_window))
  prefill,        // causal pass over `seq` tokens (ModelOptions::seq_len; 0 = the default length)
  decode          // `tokens` steps, each one new token per sequence, over a cache already holding `context`
};

struct DecoderPhase {
  Phase phase = Phase::model_default;
  std::uint64_t context = 0;  // decode: tokens already in the KV cache
  std::uint64_t tokens = 1;   // decode: steps (new tokens per sequence)
  DType kv_dtype = DType::fp16, weight_dtype = DType::fp16;
};

struct DecoderFacts {
  std::uint64_t params = 0;            // every weight: embeddings, layers, final norm, head when untied
  std::uint64_t embedding_params = 0;  // token (and position) tables and an untied head (Kaplan's "embedding")
  std::uint64_t layers = 0, attention_width = 0;  // n_layer and d_attn = heads · head_dim (Kaplan)
  std::uint64_t new_tokens = 0;                   // batch · tokens processed (prefill: seq; decode: steps)
  std::uint64_t context = 0;                      // keys of the last token: prefill seq, decode N + T
  std::uint64_t kv_bytes_per_token = 0;     // 2 · kv_heads · head_dim · kv_dtype bytes per layer keeping a KV cache
  std::uint64_t recurrent_state_bytes = 0;  // the states of the layers of a recurrent variant (constant in context)
  /// After the phase: batch · context · kv_bytes_per_token + recurrent_state_bytes. Reads and writes: a decode step
  /// reads the cache and the state and writes its token's keys and values and the state; a prefill writes them.
  std::uint64_t kv_cache_bytes = 0;
  std::uint64_t kv_read_bytes = 0, kv_write_bytes = 0, weight_read_bytes = 0;
  std::uint64_t weight_bytes = 0;  // every weight (params) as stored, tables included: what a GPU holds once
  std::uint64_t matmul_macs = 0;   // multiply-accumulates of every matrix product (GEMM records)

  std::uint64_t non_embedding_params() const { return params - embedding_params; }
  double macs_per_token() const;
  /// What a GPU must hold for the phase: the weights once and the KV cache or recurrent state (kv_cache_bytes).
  std::uint64_t resident_bytes() const;
  /// {"params", "non_embedding_params", "kv_cache_bytes", "kv_bytes_per_token", "recurrent_state_bytes",
  /// "kv_read_bytes", "kv_write_bytes",
  /// "weight_read_bytes", "macs_per_token", "new_tokens", "context"}.
  nlohmann::json to_json() const;
};

}  // namespace ecosim
