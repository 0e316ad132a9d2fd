// Builder of the Long Range Arena encoders (Nyströmformer code base settings): token + position embedding,
// pre-LN transformer layers, final LayerNorm, mean pooling and an MLP classifier; the retrieval task encodes
// two documents and classifies [x0, x1, x0·x1, x0 − x1].
#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

std::vector<Layer> build_lra(const ModelEntry& e, const ModelOptions& o) {
  if (o.resolution)
    throw Error("model '" + e.model() + "' takes a sequence: a resolution does not apply (give a sequence length)");
  const std::uint64_t n = o.seq_len ? o.seq_len : e.uint("seq_len");
  const std::uint64_t c = e.uint("embed_dim"), heads = e.uint("num_heads"), head_dim = e.uint("head_dim");
  const std::uint64_t hidden = e.uint("ffn_hidden"), cls_hidden = e.uint("classifier_hidden");
  const bool dual = e.flag("dual");
  const std::uint64_t docs = checked_mul(o.batch, dual ? 2 : 1);  // both documents go through the encoder
  const std::uint64_t rows = checked_mul(docs, n);

  std::vector<Layer> layers;
  layers.push_back({"pos_embed", ResidualAdd{checked_mul(rows, c)}});
  const std::vector<AttentionVariant> native =
      o.native_attention ? e.variants("native_attention") : std::vector<AttentionVariant>{};
  const std::uint64_t depth = e.uint("layers", kMaxBlocks);
  for (std::uint64_t l = 0; l < depth; ++l) {
    const std::string layer = "layer" + std::to_string(l);
    ModelOptions doc_options = o;
    doc_options.batch = docs;
    if (o.native_attention) doc_options.attention.variant = native[l % native.size()];
    layers.push_back({layer + ".norm1", LayerNorm{rows, c}});
    layers.push_back({layer + ".attn", block_attention(doc_options, false, n, heads, head_dim, c, {})});
    layers.push_back({layer + ".residual1", ResidualAdd{checked_mul(rows, c)}});
    layers.push_back({layer + ".norm2", LayerNorm{rows, c}});
    layers.push_back({layer + ".fc1", Linear{rows, c, hidden}});
    layers.push_back({layer + ".gelu", Activation{ActivationFunc::gelu, checked_mul(rows, hidden)}});
    layers.push_back({layer + ".fc2", Linear{rows, hidden, c}});
    layers.push_back({layer + ".residual2", ResidualAdd{checked_mul(rows, c)}});
  }
  layers.push_back({"norm", LayerNorm{rows, c}});
  layers.push_back({"pool", MeanPool{docs, n, c}});
  std::uint64_t features = c;
  if (dual) {
    layers.push_back({"pair_product", ElementwiseMul{checked_mul(o.batch, c)}});     // x0·x1
    layers.push_back({"pair_difference", ResidualAdd{checked_mul(o.batch, c)}});     // x0 − x1
    features = checked_mul(4, c);
  }
  layers.push_back({"classifier.fc1", Linear{o.batch, features, cls_hidden}});
  layers.push_back({"classifier.relu", Activation{ActivationFunc::relu, checked_mul(o.batch, cls_hidden)}});
  layers.push_back({"classifier.fc2", Linear{o.batch, cls_hidden, e.uint("num_classes")}});
  return layers;
}

}  // namespace ecosim::detail
