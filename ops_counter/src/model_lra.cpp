// Builder of the Long Range Arena encoders (Nyströmformer code base settings): token + position embedding,
// pre-LN transformer layers, final LayerNorm, mean pooling and an MLP classifier; the retrieval task encodes
// two documents and classifies [x0, x1, x0·x1, x0 − x1].
#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

namespace {

constexpr std::string_view kKeys[] = {"seq_len",          "embed_dim", "num_heads",         "head_dim",
                                      "ffn_hidden",       "layers",    "classifier_hidden", "num_classes",
                                      "native_attention", "dual",      "vocab_size"};

std::vector<Layer> build_lra(const ModelEntry& e, const ModelOptions& o) {
  const std::uint64_t n = learned_sequence_length(e, o);
  const std::uint64_t c = e.uint("embed_dim"), heads = e.uint("num_heads"), head_dim = e.uint("head_dim");
  const std::uint64_t hidden = e.uint("ffn_hidden"), cls_hidden = e.uint("classifier_hidden");
  const bool dual = e.flag("dual");
  const std::uint64_t docs = checked_mul(o.batch, dual ? 2 : 1);  // both documents go through the encoder
  const std::uint64_t rows = checked_mul(docs, n);

  // the token lookup is memory only: its table and the position table ride on the position add (the two
  // documents of the retrieval task share them)
  std::vector<Layer> layers;
  layers.push_back({.name = "pos_embed",
                    .op = ResidualAdd{checked_mul(rows, c)},
                    .table_parameters = token_and_position_tables(e, c)});
  const std::vector<AttentionVariant> native = native_variants(e, o);
  const std::uint64_t depth = e.uint("layers", kMaxBlocks);
  for (std::uint64_t l = 0; l < depth; ++l) {
    const std::string layer = "layer" + std::to_string(l);
    ModelOptions doc_options = block_options(o, native, l);
    doc_options.batch = docs;
    append_block(layers, layer, rows, c, hidden,
                 {.attention = block_attention(doc_options, false, n, heads, head_dim, c, {})});
  }
  layers.push_back({"norm", LayerNorm{rows, c}});
  layers.push_back({"pool", MeanPool{docs, n, c}});
  std::uint64_t features = c;
  if (dual) {
    layers.push_back({"pair_product", ElementwiseMul{checked_mul(o.batch, c)}});  // x0·x1
    layers.push_back({"pair_difference", ResidualAdd{checked_mul(o.batch, c)}});  // x0 − x1
    features = checked_mul(4, c);
    // [x0, x1, x0·x1, x0 − x1]: a new tensor, which the classifier's first layer reads (and keeps for training)
    layers.push_back({"pair_concat", DataMovement{.func = "Concat", .elements = checked_mul(o.batch, features)}});
  }
  layers.push_back({"classifier.fc1", Linear{o.batch, features, cls_hidden}});
  layers.push_back({"classifier.relu", Activation{ActivationFunc::relu, checked_mul(o.batch, cls_hidden)}});
  layers.push_back({"classifier.fc2", Linear{o.batch, cls_hidden, e.uint("num_classes")}});
  return layers;
}

}  // namespace

constinit const ModelFamily kLraFamily{"lra", kKeys, build_lra};

}  // namespace ecosim::detail
