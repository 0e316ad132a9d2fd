// Builder of language-model encoders (BERT, GPT-2): token embedding lookup (memory only; its table a parameter),
// position (and BERT's token-type) embedding adds, optional embedding LayerNorm, optional training dropouts, blocks in
// pre-norm (GPT-2) or post-norm (BERT) form, causal attention in causal models (only a variant with a causal form),
// optional final LayerNorm and language-model head.

#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

namespace {

constexpr std::string_view kKeys[] = {"seq_len",          "embed_dim",  "num_heads", "ffn_hidden",
                                      "layers",           "causal",     "post_norm", "token_type_embedding",
                                      "embedding_norm",   "final_norm", "lm_head",   "vocab_size",
                                      "native_attention", "dropout"};

std::vector<Layer> build_encoder(const ModelEntry& e, const ModelOptions& o) {
  const std::uint64_t n = learned_sequence_length(e, o);
  const std::uint64_t c = e.uint("embed_dim"), heads = e.uint("num_heads"), hidden = e.uint("ffn_hidden");
  const bool causal = e.flag("causal"), post_norm = e.flag("post_norm");
  const std::uint64_t rows = checked_mul(o.batch, n), elements = checked_mul(rows, c);

  // The token lookup is memory only (no layer): its table, and the position table (one row per position of the
  // model's own length), ride on the position add; BERT's two token-type rows on theirs. A head tied to the token
  // table (GPT-2's, BERT's) holds it instead: its weights, trained once, which autocast casts for its matmul.
  const std::uint64_t vocab = e.uint("vocab_size");
  const bool head = e.flag("lm_head");
  const std::uint64_t tables = token_and_position_tables(e, c) - (head ? checked_mul(vocab, c) : 0);
  std::vector<Layer> layers{{.name = "embed.position", .op = ResidualAdd{elements}, .table_parameters = tables}};
  if (e.flag("token_type_embedding"))
    layers.push_back({.name = "embed.token_type", .op = ResidualAdd{elements}, .table_parameters = checked_mul(2, c)});
  if (e.flag("embedding_norm")) layers.push_back({"embed.norm", LayerNorm{rows, c}});
  // training: dropout after the embeddings, on the attention probabilities and on each branch's output
  const bool dropout = e.has("dropout") && e.flag("dropout");
  if (dropout) layers.push_back({"embed.dropout", Dropout{elements}});
  const std::vector<AttentionVariant> native = native_variants(e, o);
  const std::uint64_t depth = e.uint("layers", kMaxBlocks);
  for (std::uint64_t l = 0; l < depth; ++l) {
    const std::string layer = "layer" + std::to_string(l);
    ModelOptions block = block_options(o, native, l);
    block.attention.causal = causal;  // MSA scores only the attended pairs; a variant without a causal form: refused
    BlockParts parts;
    try {  // validated as the (causal) attention it is: a causal EcoFormer's anchors are fixed, not drawn from keys
      parts.attention = block_attention(block, false, n, heads, head_width(e, c, heads), c, {});
    } catch (const Error& err) {
      throw Error("model '" + e.model() + "': " + err.what());
    }
    parts.post_norm = post_norm;
    parts.dropout = dropout;
    parts.attention.probs_dropout = dropout;
    append_block(layers, layer, rows, c, hidden, parts);
  }
  if (e.flag("final_norm")) layers.push_back({"norm", LayerNorm{rows, c}});
  if (head) layers.push_back({"lm_head", Linear{rows, c, vocab, false}});
  return layers;
}

}  // namespace

constinit const ModelFamily kEncoderFamily{"encoder", kKeys, build_encoder};

}  // namespace ecosim::detail
