// DecoderFacts: MACs per token, the bytes a GPU must hold, and the JSON form reports carry.
#include "ecosim/ops_counter/decoder.hpp"

#include "ecosim/ops_counter/checked.hpp"

namespace ecosim {

double DecoderFacts::macs_per_token() const {
  return new_tokens ? static_cast<double>(matmul_macs) / static_cast<double>(new_tokens) : 0.0;
}

std::uint64_t DecoderFacts::resident_bytes() const { return checked_add(kv_cache_bytes, weight_bytes); }

nlohmann::json DecoderFacts::to_json() const {
  return {{"params", params},
          {"non_embedding_params", non_embedding_params()},
          {"kv_cache_bytes", kv_cache_bytes},
          {"kv_bytes_per_token", kv_bytes_per_token},
          {"recurrent_state_bytes", recurrent_state_bytes},
          {"kv_read_bytes", kv_read_bytes},
          {"kv_write_bytes", kv_write_bytes},
          {"weight_read_bytes", weight_read_bytes},
          {"matmul_macs", matmul_macs},
          {"macs_per_token", macs_per_token()},
          {"new_tokens", new_tokens},
          {"context", context}};
}

}  // namespace ecosim
