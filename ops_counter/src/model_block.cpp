// The transformer block shared by every zoo family: attention and MLP branches with their norms and residuals.
#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

void append_block(std::vector<Layer>& layers, const std::string& block, std::uint64_t rows, std::uint64_t width,
                  std::uint64_t hidden, const BlockParts& parts) {
  const std::uint64_t elements = checked_mul(rows, width), hidden_elements = checked_mul(rows, hidden);
  if (!parts.post_norm) layers.push_back({block + ".norm1", LayerNorm{rows, width}});
  // the attention reads the block's (normalised) input, not the score additions listed before it
  const std::string attention_input = parts.score_adds.empty() || layers.empty() ? "" : layers.back().name;
  layers.insert(layers.end(), parts.score_adds.begin(), parts.score_adds.end());
  layers.push_back({block + ".attn", parts.attention, attention_input});
  if (parts.dropout) layers.push_back({block + ".attn_dropout", Dropout{elements}});
  layers.push_back({block + ".residual1", ResidualAdd{elements}});
  layers.push_back({block + ".norm" + (parts.post_norm ? "1" : "2"), LayerNorm{rows, width}});
  layers.push_back({block + ".fc1", Linear{rows, width, hidden}});
  layers.insert(layers.end(), parts.mlp_inner.begin(), parts.mlp_inner.end());
  layers.push_back({block + ".gelu", Activation{ActivationFunc::gelu, hidden_elements}});
  layers.push_back({block + ".fc2", Linear{rows, hidden, width}});
  if (parts.dropout) layers.push_back({block + ".mlp_dropout", Dropout{elements}});
  layers.push_back({block + ".residual2", ResidualAdd{elements}});
  if (parts.post_norm) layers.push_back({block + ".norm2", LayerNorm{rows, width}});
}

}  // namespace ecosim::detail
