// Builder of decoder language models (family `decoder`: Llama, Mistral, Qwen2/3, Phi-3, Gemma, GPT-2, GPT-NeoX) for a
// causal prefill or for decode steps over a KV cache, and their figures: parameters (summed from the layers built),
// KV-cache bytes and traffic, weight traffic and matmul MACs (ops_counter/README.md, "Decoder LLMs").
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

namespace {

constexpr std::string_view kKeys[] = {"hidden_size",
                                      "num_heads",
                                      "num_kv_heads",
                                      "head_dim",
                                      "intermediate_size",
                                      "layers",
                                      "vocab_size",
                                      "max_position_embeddings",
                                      "norm",
                                      "mlp",
                                      "position",
                                      "rotary_fraction",
                                      "parallel_attention",
                                      "tie_word_embeddings",
                                      "qkv_bias",
                                      "o_bias",
                                      "mlp_bias",
                                      "sliding_window",
                                      "native_attention",
                                      "qk_norm",
                                      "embedding_scale"};
/// gemma_rmsnorm: RMSNorm scaling by (1 + γ), γ stored as the offset from 1 (Gemma's).
constexpr std::string_view kNorms[] = {"rmsnorm", "layernorm", "gemma_rmsnorm"};
/// swiglu: down(silu(gate(x)) · up(x)); geglu: the same with GELU (Gemma's); gelu: fc2(gelu(fc1(x))).
constexpr std::string_view kMlps[] = {"swiglu", "geglu", "gelu"};
constexpr std::string_view kPositions[] = {"rotary", "learned"};

/// Widths (hidden, intermediate, heads · head_dim) beyond this are no published model (the largest, Llama-3.1-405B,
/// has 16,384 and 53,248): 64 times that keeps every count within 64 bits at any accepted context.
constexpr std::uint64_t kMaxWidth = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxHeads = 4096;
constexpr std::uint64_t kMaxVocab = std::uint64_t{1} << 24;
/// Positions (context) beyond 16 Mi tokens are no published model (the longest, 10 M).
constexpr std::uint64_t kMaxPositions = std::uint64_t{1} << 24;
/// Decode steps are an attention layer each, every block's: 2^20 of them (32,768 steps of a 32-block model) build
/// in about a minute and 1.4 GB; more are refused before the memory runs out.
constexpr std::uint64_t kMaxDecodeAttentionSteps = std::uint64_t{1} << 20;

struct Spec {
  std::uint64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, layers = 0, vocab = 0;
  std::uint64_t positions = 0, rotary_dims = 0, window = 0;  // window 0: none
  std::string norm, mlp;
  bool rotary = false, parallel = false, tied = false;
  bool qkv_bias = false, o_bias = false, mlp_bias = false;
  bool qk_norm = false;          // an RMSNorm over each head's queries and keys before rotary (Qwen3's)
  bool embedding_scale = false;  // the looked-up embeddings multiplied by √hidden (Gemma's)
};

Spec read_spec(const ModelEntry& e) {
  const auto fail = [&e](const std::string& what) { throw Error("model '" + e.model() + "': " + what); };
  Spec s;
  s.hidden = e.uint("hidden_size", kMaxWidth);
  s.heads = e.uint("num_heads", kMaxHeads);
  s.kv_heads = e.has("num_kv_heads") ? e.uint("num_kv_heads", kMaxHeads) : s.heads;
  if (s.heads % s.kv_heads)
    fail(e.field("num_kv_heads") + " (" + std::to_string(s.kv_heads) + ") must divide " + e.field("num_heads") + " (" +
         std::to_string(s.heads) + "): each key/value head serves a whole group of query heads");
  if (e.has("head_dim")) {
    s.head_dim = e.uint("head_dim", kMaxWidth);
  } else if (s.hidden % s.heads) {
    fail(e.field("hidden_size") + " (" + std::to_string(s.hidden) + ") is not divisible by " + e.field("num_heads") +
         " (" + std::to_string(s.heads) + ") and no head width is given");
  } else {
    s.head_dim = s.hidden / s.heads;
  }
  if (s.heads * s.head_dim > kMaxWidth)
    fail(e.field("num_heads") + " · head width must be at most " + std::to_string(kMaxWidth));
  s.intermediate = e.uint("intermediate_size", kMaxWidth);
  s.layers = e.uint("layers", kMaxBlocks);
  s.vocab = e.uint("vocab_size", kMaxVocab);
  s.positions = e.uint("max_position_embeddings", kMaxPositions);
  s.norm = e.text("norm", kNorms);
  s.mlp = e.text("mlp", kMlps);
  s.rotary = e.text("position", kPositions) == "rotary";
  if (s.rotary) {
    const double dims =
        (e.has("rotary_fraction") ? e.fraction("rotary_fraction") : 1.0) * static_cast<double>(s.head_dim);
    if (dims != std::floor(dims) || static_cast<std::uint64_t>(dims) % 2 || dims < 2)
      fail(e.field("rotary_fraction") + " · head width (" + std::to_string(s.head_dim) +
           ") must be an even whole number of rotated dimensions");
    s.rotary_dims = static_cast<std::uint64_t>(dims);
  } else if (e.has("rotary_fraction")) {
    fail(e.field("rotary_fraction") + " applies to rotary position embedding only");
  }
  s.parallel = e.flag("parallel_attention");
  s.tied = e.flag("tie_word_embeddings");
  s.qkv_bias = e.flag("qkv_bias");
  s.o_bias = e.flag("o_bias");
  s.mlp_bias = e.flag("mlp_bias");
  if (e.has("sliding_window")) s.window = e.uint("sliding_window", kMaxPositions);
  s.qk_norm = e.has("qk_norm") && e.flag("qk_norm");
  s.embedding_scale = e.has("embedding_scale") && e.flag("embedding_scale");
  return s;
}

/// Queries (new tokens per sequence) and keys (the last query's context) of the phase, and its passes over the
/// model: one for a prefill, one a step for decode steps.
struct Shape {
  std::uint64_t queries = 0, keys = 0, passes = 1;
};

Shape phase_shape(const ModelEntry& e, const Spec& s, const ModelOptions& o) {
  const auto fail = [&e](const std::string& what) { throw Error("model '" + e.model() + "': " + what); };
  if (o.resolution) fail("a decoder takes tokens: a resolution does not apply");
  Shape sh;
  if (o.phase.phase == Phase::decode) {
    if (o.seq_len) fail("decode steps take the cached context (--context N), not a sequence length");
    if (o.phase.context == 0 || o.phase.tokens == 0)
      fail("decode needs at least one cached token (--context) and at least one step (--tokens)");
    if (checked_mul(o.phase.tokens, s.layers) > kMaxDecodeAttentionSteps)
      fail(
          fmt::format("{} decode steps over {} blocks are {} attention steps, above the {} counted at once: count "
                      "them in parts (--context C --tokens T counts the steps after C cached tokens; the parts add)",
                      o.phase.tokens, s.layers, o.phase.tokens * s.layers, kMaxDecodeAttentionSteps));
    sh = {o.phase.tokens, checked_add(o.phase.context, o.phase.tokens), o.phase.tokens};
  } else {
    const std::uint64_t n = o.seq_len ? o.seq_len : s.window ? std::min(s.positions, s.window) : s.positions;
    sh = {n, n};
  }
  if (sh.keys > s.positions)
    fail("a context of " + std::to_string(sh.keys) + " tokens exceeds " + e.field("max_position_embeddings") + " (" +
         std::to_string(s.positions) + "): the model has no positions beyond it");
  const std::vector<AttentionVariant> used =
      o.native_attention ? native_variants(e, o) : std::vector<AttentionVariant>{o.attention.variant};
  const bool all_sliding =
      std::all_of(used.begin(), used.end(), [](AttentionVariant v) { return v == AttentionVariant::sliding; });
  if (s.window && sh.keys > s.window && !all_sliding)
    fail("a context of " + std::to_string(sh.keys) + " tokens exceeds " + e.field("sliding_window") + " (" +
         std::to_string(s.window) +
         "): a variant swapped in would attend beyond the model's window (the model "
         "would no longer be itself); its own attention there is 'sliding' (or 'native')");
  return sh;
}

Layer norm(const Spec& s, std::string name, std::uint64_t rows, std::uint64_t width) {
  if (s.norm == "layernorm") return {std::move(name), LayerNorm{rows, width}};
  return {std::move(name), RmsNorm{rows, width, s.norm == "gemma_rmsnorm"}};
}

void append_mlp(std::vector<Layer>& layers, const std::string& block, const Spec& s, std::uint64_t rows) {
  const std::uint64_t hidden_elements = checked_mul(rows, s.intermediate);
  if (s.mlp != "gelu") {  // down(act(gate(x)) · up(x)), act SiLU (SwiGLU) or GELU (GeGLU)
    const bool silu = s.mlp == "swiglu";
    layers.push_back({block + ".gate", Linear{rows, s.hidden, s.intermediate, s.mlp_bias}});
    layers.push_back({block + ".up", Linear{rows, s.hidden, s.intermediate, s.mlp_bias}});
    layers.push_back({block + (silu ? ".silu" : ".gelu"),
                      Activation{silu ? ActivationFunc::silu : ActivationFunc::gelu, hidden_elements}});
    layers.push_back({block + ".gate_mul", ElementwiseMul{hidden_elements}});
    layers.push_back({block + ".down", Linear{rows, s.intermediate, s.hidden, s.mlp_bias}});
  } else {  // fc2(gelu(fc1(x)))
    layers.push_back({block + ".fc1", Linear{rows, s.hidden, s.intermediate, s.mlp_bias}});
    layers.push_back({block + ".gelu", Activation{ActivationFunc::gelu, hidden_elements}});
    layers.push_back({block + ".fc2", Linear{rows, s.intermediate, s.hidden, s.mlp_bias}});
  }
}

/// The attention of layer `l` over the whole phase (T queries over N + T keys in decode), validated.
AttentionConfig block_attention(const ModelEntry& e, const Spec& s, const Shape& sh, const ModelOptions& o,
                                const std::vector<AttentionVariant>& native, std::uint64_t l) {
  AttentionConfig a = block_options(o, native, l).attention;
  a.batch = o.batch;
  a.seq = sh.queries;
  a.keys = sh.keys;
  a.heads = s.heads;        // grouped-query attention: every query head scores its group's shared keys
  a.kv_heads = s.kv_heads;  // K/V heads (a variant whose keys are its queries groups its values alone)
  a.head_dim = s.head_dim;
  a.embed_dim = s.hidden;
  a.projections = false;  // the decoder's own projections: k and v have kv_heads heads
  a.causal = true;        // MSA scores only the attended pairs; a variant without a causal form: refused
  if (o.native_attention && a.variant == AttentionVariant::sliding) {  // the model's own window
    if (!s.window)
      throw Error("model '" + e.model() + "': its own attention is sliding, and it has no " +
                  e.field("sliding_window"));
    a.sliding_window = s.window;
  }
  try {
    a.validate();
  } catch (const Error& err) {
    throw Error("model '" + e.model() + "': " + err.what());
  }
  return a;
}

std::vector<Layer> decoder_layers(const ModelEntry& e, const Spec& s, const Shape& sh, const ModelOptions& o) {
  const std::uint64_t rows = checked_mul(o.batch, sh.queries), elements = checked_mul(rows, s.hidden);
  const std::uint64_t inner = s.heads * s.head_dim, kv_inner = s.kv_heads * s.head_dim;
  std::vector<Layer> layers;
  if (!s.rotary) layers.push_back({"embed.position", ResidualAdd{elements}});  // the token lookup is memory only
  if (s.embedding_scale)                                                       // × √hidden, a constant
    layers.push_back(
        {"embed.scale",
         Elementwise{.func = "Mul", .elements = elements, .per_element = {.mul = 1}, .constant_operands = 2}});
  const std::vector<AttentionVariant> native = native_variants(e, o);
  for (std::uint64_t l = 0; l < s.layers; ++l) {
    const std::string block = "layer" + std::to_string(l);
    const AttentionConfig a = block_attention(e, s, sh, o, native, l);
    // A variant whose keys are its queries (one shared q/k projection: the EcoFormer family, Reformer) projects no
    // keys of its own.
    const bool shared_qk = variant_info(a.variant).shares_qk;
    const std::uint64_t key_heads = shared_qk ? 0 : s.kv_heads;
    layers.push_back(norm(s, block + ".norm1", rows, s.hidden));
    layers.push_back(
        {block + ".attn.qkv", Linear{rows, s.hidden, inner + key_heads * s.head_dim + kv_inner, s.qkv_bias}, {}, true});
    if (s.qk_norm) {  // over each head's width, one γ shared by the heads
      layers.push_back(norm(s, block + ".attn.q_norm", checked_mul(rows, s.heads), s.head_dim));
      layers.back().attention_part = true;
      if (key_heads) {
        layers.push_back(norm(s, block + ".attn.k_norm", checked_mul(rows, key_heads), s.head_dim));
        layers.back().attention_part = true;
      }
    }
    if (s.rotary)  // the new tokens' queries and keys; the cached keys were rotated when they were new
      layers.push_back(
          {block + ".attn.rotary", Rotary{checked_mul(rows, s.heads + key_heads), s.rotary_dims}, {}, true});
    if (sh.passes == 1) {
      layers.push_back({block + ".attn", a});
    } else {  // a decode step each: its one new token over the keys cached before it and its own
      for (std::uint64_t t = 0; t < sh.passes; ++t) {
        AttentionConfig step = a;
        step.seq = 1;
        step.keys = sh.keys - (sh.passes - 1 - t);
        layers.push_back({block + ".attn.step" + std::to_string(t), step});
      }
    }
    layers.push_back({block + ".attn.proj", Linear{rows, inner, s.hidden, s.o_bias}, {}, true});
    if (!s.parallel) layers.push_back({block + ".residual1", ResidualAdd{elements}});
    layers.push_back(
        norm(s, block + ".norm2", rows, s.hidden));  // parallel (GPT-NeoX): over the block's input, as norm1
    append_mlp(layers, block, s, rows);
    if (s.parallel) layers.push_back({block + ".residual1", ResidualAdd{elements}});
    layers.push_back({block + ".residual2", ResidualAdd{elements}});
  }
  layers.push_back(norm(s, "norm", rows, s.hidden));
  // A head tied to the token embedding shares its weights, not its work: its matmul counts all the same.
  layers.push_back({"lm_head", Linear{rows, s.hidden, s.vocab, false}});
  // Decode steps: every layer but the attention (a layer a step) runs once a step over the step's rows.
  for (Layer& layer : layers)
    if (!std::holds_alternative<AttentionConfig>(layer.op)) layer.passes = sh.passes;
  // The token lookup is memory only: the token table (when not the tied head's weights) and a learned position
  // table ride on the first layer as parameters.
  layers.front().table_parameters =
      checked_add(s.tied ? 0 : checked_mul(s.vocab, s.hidden), s.rotary ? 0 : checked_mul(s.positions, s.hidden));
  return layers;
}

std::vector<Layer> build_decoder(const ModelEntry& e, const ModelOptions& o) {
  const Spec s = read_spec(e);
  return decoder_layers(e, s, phase_shape(e, s, o), o);
}

/// The weights of a layer: a Linear's matrix (and bias), a norm's scale (and LayerNorm's shift).
std::uint64_t weights(const Layer& layer) {
  if (const auto* l = std::get_if<Linear>(&layer.op))
    return checked_add(checked_mul(l->in, l->out), l->bias ? l->out : 0);
  if (const auto* n = std::get_if<LayerNorm>(&layer.op)) return checked_mul(2, n->width);
  if (const auto* n = std::get_if<RmsNorm>(&layer.op)) return n->width;
  return 0;
}

/// Sums the multiplications of the GEMM records: the multiply-accumulates of every matrix product.
class MatmulMacs : public OpSink {
 public:
  void record(const OpRecord& op) override {
    if (op.kind == OpClass::gemm) macs_ = checked_add(macs_, op.counts.ops(OpKind::mul));
  }
  std::uint64_t macs() const { return macs_; }

 private:
  std::uint64_t macs_ = 0;
};

/// Σ_{t=first}^{last} min(t, window): the cached tokens read by the decode steps whose contexts are first..last
/// (window 0: none).
std::uint64_t tokens_read(std::uint64_t first, std::uint64_t last, std::uint64_t window) {
  return attended_pairs(last - first + 1, last, true, window);
}

/// What the attention layers keep between steps, after the phase, and read and write in it: the KV caches of the
/// layers keeping their keys and values ((key heads + value heads)·head_dim at kv_dtype per token; a sliding window's,
/// its last W tokens) and the recurrent variants' states (each pass writes the state it ends with; a decode step also
/// reads the state it starts from).
struct Memory {
  std::uint64_t per_token = 0, state = 0, cache = 0, read = 0, write = 0;
};

Memory attention_memory(const ModelEntry& e, const Spec& s, const Shape& sh, const ModelOptions& o) {
  const bool decode = o.phase.phase == Phase::decode;
  const std::vector<AttentionVariant> native = native_variants(e, o);
  Memory m;
  for (std::uint64_t l = 0; l < s.layers; ++l) {
    const AttentionConfig a = block_attention(e, s, sh, o, native, l);
    if (variant_info(a.variant).recurrent) {
      const std::uint64_t state = recurrent_state_bytes(a);
      m.state = checked_add(m.state, state);
      m.cache = checked_add(m.cache, state);
      m.write = checked_add(m.write, checked_mul(sh.passes, state));
      if (decode) m.read = checked_add(m.read, checked_mul(sh.passes, state));
      continue;
    }
    // keys and values (a variant sharing q and k caches keys per query head: they are its queries)
    const std::uint64_t per_token = storage_bytes(o.phase.kv_dtype, (a.key_heads() + a.value_heads()) * s.head_dim);
    const std::uint64_t window = a.variant == AttentionVariant::sliding ? a.sliding_window : 0;
    m.per_token = checked_add(m.per_token, per_token);
    const std::uint64_t cached = window ? std::min(sh.keys, window) : sh.keys;
    m.cache = checked_add(m.cache, checked_product({o.batch, cached, per_token}));
    m.write = checked_add(m.write, checked_product({o.batch, sh.queries, per_token}));
    // Reformer's step reads, in each round, the (before + 1)·L keys ending at it in that round's order — each query
    // head its own, so the values too at each query head's positions (a K/V head's group reads it once a head)
    const bool reformer = a.variant == AttentionVariant::reformer;
    const std::uint64_t read_window = reformer ? checked_mul(a.hashes, reformer_decode_window(a)) : window;
    const std::uint64_t read_per_token =
        reformer ? storage_bytes(o.phase.kv_dtype, (a.key_heads() + a.heads) * s.head_dim) : per_token;
    if (decode)  // step t of T reads the cache of N + t tokens (its own just written), at most the window's
      m.read = checked_add(
          m.read, checked_product({o.batch, tokens_read(o.phase.context + 1, sh.keys, read_window), read_per_token}));
  }
  return m;
}

DecoderFacts decoder_facts(const ModelEntry& e, const ModelOptions& o) {
  const Spec s = read_spec(e);
  const Shape sh = phase_shape(e, s, o);
  const std::vector<Layer> layers = decoder_layers(e, s, sh, o);
  DecoderFacts f;
  std::uint64_t layer_weights = 0, tables = 0;  // weights: read once per pass, every layer's and the head's
  MatmulMacs macs;
  for (const Layer& layer : layers) {
    layer_weights = checked_add(layer_weights, weights(layer));
    tables = checked_add(tables, layer.table_parameters);
    emit(layer, Convention::exact, macs);
  }
  f.embedding_params = checked_add(tables, weights(layers.back()));  // the tables and the head (tied or not)
  f.params = checked_add(tables, layer_weights);
  f.layers = s.layers;
  f.attention_width = s.heads * s.head_dim;
  f.new_tokens = checked_mul(o.batch, sh.queries);
  f.context = sh.keys;
  const Memory memory = attention_memory(e, s, sh, o);
  f.kv_bytes_per_token = memory.per_token;
  f.recurrent_state_bytes = memory.state;
  f.kv_cache_bytes = memory.cache;
  f.kv_write_bytes = memory.write;
  f.kv_read_bytes = memory.read;
  f.weight_read_bytes = checked_mul(sh.passes, storage_bytes(o.phase.weight_dtype, layer_weights));
  f.weight_bytes = storage_bytes(o.phase.weight_dtype, f.params);
  f.matmul_macs = macs.macs();
  return f;
}

}  // namespace

constinit const ModelFamily kDecoderFamily{"decoder", kKeys, build_decoder, decoder_facts};

}  // namespace ecosim::detail
