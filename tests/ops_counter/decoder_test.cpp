// Decoder LLMs: parameter counts against the published ones, MACs per token against Kaplan et al. (2020), KV-cache
// bytes, a decode step counted by hand, prefill + decode = a longer prefill, and the zoo's decoders against their
// Hugging Face configs (tests/ops_counter/data/hf, written from the published config.json files).
#include <catch2/catch.hpp>
#include <cmath>

#include "ecosim/ops_counter/hf_config.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "record_helpers.hpp"

using namespace ecosim;

namespace {

const std::string kHfDir = ECOSIM_HF_CONFIGS_DIR;

ModelZoo hf(const std::string& name) { return hf_config_zoo(kHfDir + "/" + name + ".json"); }
std::string hf_model(const std::string& name) { return kHfDir + "/" + name + ".json"; }

ModelOptions prefill(std::uint64_t seq = 0) {
  ModelOptions o;
  o.phase.phase = Phase::prefill;
  o.seq_len = seq;
  return o;
}

ModelOptions decode(std::uint64_t context, std::uint64_t tokens) {
  ModelOptions o;
  o.phase.phase = Phase::decode;
  o.phase.context = context;
  o.phase.tokens = tokens;
  return o;
}

std::vector<OpRecord> records(const ModelZoo& zoo, const std::string& model, const ModelOptions& o, Convention c) {
  RecordingSink sink;
  for (const Layer& l : zoo.build(model, o)) emit(l, c, sink);
  return sink.records;
}

OpCounts total(const ModelZoo& zoo, const std::string& model, const ModelOptions& o, Convention c) {
  OpCounter counter;
  for (const Layer& l : zoo.build(model, o)) emit(l, c, counter);
  return counter.total();
}

/// A tiny Llama-style decoder: hidden 8, 4 query heads of 2 over 2 key/value heads, SwiGLU of 12, 2 layers, vocab 10.
const char* kTinyZoo = R"({
  "tiny": {"family": "decoder", "hidden_size": 8, "num_heads": 4, "num_kv_heads": 2, "intermediate_size": 12,
           "layers": 2, "vocab_size": 10, "max_position_embeddings": 64, "norm": "rmsnorm", "mlp": "swiglu",
           "position": "rotary", "parallel_attention": false, "tie_word_embeddings": false, "qkv_bias": false,
           "o_bias": false, "mlp_bias": false, "native_attention": ["msa"]},
  "tiny_gpt": {"extends": "tiny", "num_kv_heads": 4, "norm": "layernorm", "mlp": "gelu", "position": "learned",
               "tie_word_embeddings": true, "qkv_bias": true, "o_bias": true, "mlp_bias": true}
})";

const OpRecord& named(const std::vector<OpRecord>& rs, const std::string& name) {
  for (const OpRecord& r : rs)
    if (r.name == name) return r;
  FAIL("no record " << name);
  return rs.front();
}

}  // namespace

TEST_CASE("parameter counts from each config are the published ones (within 0.5 %)") {
  struct Case {
    const char* model;
    double published;  // model cards / papers
  };
  const ModelZoo zoo = ModelZoo::builtin();
  for (const Case& c :
       {Case{"llama2_7b", 6.74e9}, Case{"llama3_8b", 8.03e9}, Case{"mistral_7b", 7.24e9}, Case{"llama3_70b", 70.6e9},
        Case{"qwen2_7b", 7.62e9}, Case{"qwen3_8b", 8.2e9}, Case{"phi3_mini_4k", 3.82e9}, Case{"gemma_7b", 8.54e9},
        Case{"gemma_2b", 2.51e9}, Case{"gpt2_medium", 355e6}, Case{"pythia_1_4b", 1.41e9}}) {
    INFO(c.model);
    const DecoderFacts zoo_facts = *zoo.decoder_facts(c.model, {});
    const DecoderFacts hf_facts = *hf(c.model).decoder_facts(hf_model(c.model), {});
    CHECK(zoo_facts.params == hf_facts.params);
    CHECK(std::abs(static_cast<double>(zoo_facts.params) / c.published - 1) < 0.005);
  }
  // Exact published totals: GPT-2 small and medium (tied head, learned positions) and Pythia-1.4B's model card.
  CHECK(hf("gpt2_small").decoder_facts(hf_model("gpt2_small"), {})->params == 124'439'808);
  CHECK(zoo.decoder_facts("gpt2_medium", {})->params == 354'823'168);
  CHECK(zoo.decoder_facts("pythia_1_4b", {})->params == 1'414'647'808);
  // Non-embedding parameters: the Gemma report's Table 1 exactly (its embedding rows are the padded 256,128-token
  // table, the config's 256,000 here), Qwen3's model cards (6.95 B, 0.44 B) within 0.5 %
  CHECK(zoo.decoder_facts("gemma_2b", {})->non_embedding_params() == 1'981'884'416);
  CHECK(zoo.decoder_facts("gemma_7b", {})->non_embedding_params() == 7'751'248'896);
  CHECK(std::abs(static_cast<double>(zoo.decoder_facts("qwen3_8b", {})->non_embedding_params()) / 6.95e9 - 1) < 0.005);
  const DecoderFacts qwen3_small = *hf("qwen3_0_6b").decoder_facts(hf_model("qwen3_0_6b"), {});
  CHECK(std::abs(static_cast<double>(qwen3_small.non_embedding_params()) / 0.44e9 - 1) < 0.005);
  CHECK(qwen3_small.embedding_params == 151936 * 1024);  // tied: the table once
}

TEST_CASE("the parameter formula by hand for a tiny decoder, untied and tied") {
  const ModelZoo zoo = ModelZoo::parse(kTinyZoo, "tiny");
  // untied: token table V·C + head V·C + layers·(qkv C·(H + 2·KV)·d + o H·d·C + SwiGLU 3·C·I + 2 RMSNorm C) + C
  const std::uint64_t c = 8, v = 10, h = 4, kv = 2, d = 2, i = 12;
  const std::uint64_t layer = c * (h + 2 * kv) * d + h * d * c + 3 * c * i + 2 * c;
  const DecoderFacts f = *zoo.decoder_facts("tiny", {});
  CHECK(f.params == 2 * v * c + 2 * layer + c);
  CHECK(f.embedding_params == 2 * v * c);
  // tied, GELU MLP, biases, LayerNorms, learned positions (max 64): head shares the token table
  const std::uint64_t gpt_layer = (c * 3 * c + 3 * c) + (c * c + c) + (c * i + i) + (i * c + c) + 2 * 2 * c;
  const DecoderFacts g = *zoo.decoder_facts("tiny_gpt", {});
  CHECK(g.params == v * c + 64 * c + 2 * gpt_layer + 2 * c);
  CHECK(g.embedding_params == v * c + 64 * c);
}

TEST_CASE("Qwen3's per-head q/k norms and Gemma's blocks, counted by hand on the tiny decoder") {
  const ModelZoo zoo = ModelZoo::parse(R"({
    "tiny": {"family": "decoder", "hidden_size": 8, "num_heads": 4, "num_kv_heads": 2, "intermediate_size": 12,
             "layers": 2, "vocab_size": 10, "max_position_embeddings": 64, "norm": "rmsnorm", "mlp": "swiglu",
             "position": "rotary", "parallel_attention": false, "tie_word_embeddings": false, "qkv_bias": false,
             "o_bias": false, "mlp_bias": false, "native_attention": ["msa"]},
    "tiny_qwen3": {"extends": "tiny", "qk_norm": true},
    "tiny_gemma": {"extends": "tiny", "norm": "gemma_rmsnorm", "mlp": "geglu", "embedding_scale": true,
                   "tie_word_embeddings": true}
  })",
                                       "tiny");
  const std::uint64_t c = 8, v = 10, h = 4, kv = 2, d = 2, i = 12, layers = 2, steps = 2;
  // Qwen3: a γ of width d for the queries and one for the keys, each layer
  CHECK(zoo.decoder_facts("tiny_qwen3", {})->params == zoo.decoder_facts("tiny", {})->params + layers * 2 * d);
  // two decode steps (rows = 2): q_norm over rows·H head vectors, k_norm over rows·KV, each an RMSNorm row of d:
  // 3d + 1 muls, d adds, 1 div, 1 sqrt
  const OpCounts tiny = total(zoo, "tiny", decode(40, steps), Convention::exact);
  const OpCounts qwen3 = total(zoo, "tiny_qwen3", decode(40, steps), Convention::exact);
  const std::uint64_t vectors = layers * steps * (h + kv);
  CHECK(qwen3.ops(OpKind::mul) - tiny.ops(OpKind::mul) == vectors * (3 * d + 1));
  CHECK(qwen3.ops(OpKind::add) - tiny.ops(OpKind::add) == vectors * d);
  CHECK(qwen3.ops(OpKind::div) - tiny.ops(OpKind::div) == vectors);
  CHECK(qwen3.ops(OpKind::sqrt) - tiny.ops(OpKind::sqrt) == vectors);
  // Gemma: the head tied to the table (V·C fewer parameters, the same work); the embeddings × √C (rows·C muls); each
  // of the 2·layers + 1 norms forms 1 + γ once a step (C adds); GELU (6 mul, 4 add, 1 exp, 1 div) in place of SiLU
  // (1 exp, 1 add, 1 div) on the rows·I gate outputs of each layer
  CHECK(zoo.decoder_facts("tiny", {})->params - zoo.decoder_facts("tiny_gemma", {})->params == v * c);
  const OpCounts gemma = total(zoo, "tiny_gemma", decode(40, steps), Convention::exact);
  const std::uint64_t gate_outputs = layers * steps * i;
  CHECK(gemma.ops(OpKind::mul) - tiny.ops(OpKind::mul) == steps * c + gate_outputs * 6);
  CHECK(gemma.ops(OpKind::add) - tiny.ops(OpKind::add) == (2 * layers + 1) * steps * c + gate_outputs * 3);
  for (OpKind k : {OpKind::exp, OpKind::div, OpKind::sqrt, OpKind::cmp}) CHECK(gemma.ops(k) == tiny.ops(k));
  // paper (mmcv): the scale, the 1 + γ and the activations count nothing; the same MACs
  const OpCounts gemma_paper = total(zoo, "tiny_gemma", decode(40, steps), Convention::paper),
                 tiny_paper = total(zoo, "tiny", decode(40, steps), Convention::paper);
  for (OpKind k : kAllOpKinds) CHECK(gemma_paper.ops(k) == tiny_paper.ops(k));
}

TEST_CASE("tying saves parameters, not work: the head's matmul counts all the same") {
  const ModelZoo zoo = ModelZoo::parse(R"({"untied": {"extends": "gpt2_medium", "tie_word_embeddings": false}})", "t")
                           .overlaying(ModelZoo::builtin());
  const DecoderFacts tied = *zoo.decoder_facts("gpt2_medium", prefill(16)),
                     untied = *zoo.decoder_facts("untied", prefill(16));
  CHECK(untied.params - tied.params == 50257 * 1024);
  CHECK(untied.matmul_macs == tied.matmul_macs);
  CHECK(total(zoo, "untied", prefill(16), Convention::exact) ==
        total(zoo, "gpt2_medium", prefill(16), Convention::exact));
}

TEST_CASE("forward MACs per token are within 1 % of Kaplan et al.'s N + n_layer·n_ctx·d_attn (+ de-embedding)") {
  // Kaplan et al. 2020, Table 1: C_forward = 2N + 2·n_layer·n_ctx·d_attn FLOPs per token with N the non-embedding
  // parameters (no token or position tables, no head), plus the de-embedding 2·d_model·n_vocab; one MAC = 2 FLOPs.
  // ecosim counts the head on every token, so the de-embedding row is added; n_ctx is the prefill length.
  const ModelZoo zoo = ModelZoo::builtin();
  struct Case {
    const char* model;
    std::uint64_t d_model, vocab;
  };
  for (const Case& c :
       {Case{"llama2_7b", 4096, 32000}, Case{"llama3_8b", 4096, 128256}, Case{"mistral_7b", 4096, 32000},
        Case{"llama3_70b", 8192, 128256}, Case{"qwen2_7b", 3584, 152064}, Case{"qwen3_8b", 4096, 151936},
        Case{"phi3_mini_4k", 3072, 32064}, Case{"gemma_7b", 3072, 256000}, Case{"gemma_2b", 2048, 256000},
        Case{"gpt2_medium", 1024, 50257}, Case{"pythia_1_4b", 2048, 50304}}) {
    for (std::uint64_t n_ctx : {512, 1024}) {
      INFO(c.model << " at " << n_ctx);
      const DecoderFacts f = *zoo.decoder_facts(c.model, prefill(n_ctx));
      const double kaplan = static_cast<double>(f.non_embedding_params()) +
                            static_cast<double>(f.layers * n_ctx * f.attention_width) +
                            static_cast<double>(c.d_model * c.vocab);
      CHECK(std::abs(f.macs_per_token() / kaplan - 1) < 0.01);
    }
  }
}

TEST_CASE("KV-cache bytes: 2·layers·kv_heads·head_dim·dtype bytes per token") {
  const ModelZoo zoo = ModelZoo::builtin();
  const DecoderFacts llama3 = *zoo.decoder_facts("llama3_8b", prefill(8192));  // fp16 by default
  CHECK(llama3.kv_bytes_per_token == 128 * 1024);                              // 2·32·8·128·2 bytes
  CHECK(llama3.kv_cache_bytes == std::uint64_t{1} << 30);                      // 1 GiB at 8,192 tokens
  ModelOptions int8 = prefill(8192);
  int8.phase.kv_dtype = DType::int8;
  CHECK(zoo.decoder_facts("llama3_8b", int8)->kv_cache_bytes == std::uint64_t{1} << 29);
  // grouped-query attention: Llama-2-7B (32 kv heads) keeps 4× Llama-3-8B's (8) per token
  CHECK(zoo.decoder_facts("llama2_7b", {})->kv_bytes_per_token == 4 * llama3.kv_bytes_per_token);
  // decode: the cache after T steps over N, T·N + T(T+1)/2 tokens read, T written
  ModelOptions d = decode(100, 3);
  d.batch = 2;
  const DecoderFacts step = *zoo.decoder_facts("llama3_8b", d);
  CHECK(step.kv_cache_bytes == 2 * 103 * llama3.kv_bytes_per_token);
  CHECK(step.kv_read_bytes == 2 * (3 * 100 + 6) * llama3.kv_bytes_per_token);
  CHECK(step.kv_write_bytes == 2 * 3 * llama3.kv_bytes_per_token);
  CHECK(step.weight_read_bytes == 3 * zoo.decoder_facts("llama3_8b", prefill(8))->weight_read_bytes);
}

TEST_CASE("a decode step of a tiny decoder, counted by hand") {
  const ModelZoo zoo = ModelZoo::parse(kTinyZoo, "tiny");
  // 2 steps over a cache of 3, one after the other: step t's token sees 3 + t + 1 keys (4, then 5)
  const std::vector<OpRecord> rs = records(zoo, "tiny", decode(3, 2), Convention::exact);
  const std::uint64_t h = 4, d = 2;
  const OpRecord& qkv = named(rs, "layer0.attn.qkv");
  // a product a step, each reading the weights again: k and v of the kv heads only
  CHECK((qkv.batch == 2 && qkv.m == 1 && qkv.k == 8 && qkv.n == (4 + 2 * 2) * 2));
  CHECK(qkv.counts.ops(OpKind::mul) == 2 * 8 * 16);
  CHECK(qkv.counts.read_bytes() == 2 * storage_bytes(qkv.b_dtype, 8 * 16) + storage_bytes(qkv.a_dtype, 2 * 8));
  for (const std::uint64_t step : {0, 1}) {
    const std::string attn = "layer0.attn.step" + std::to_string(step);
    const std::uint64_t keys = 3 + step + 1;
    CHECK(named(rs, attn + ".scores").counts.ops(OpKind::mul) == h * keys * d);  // every query head scores
    CHECK(named(rs, attn + ".scores").counts.ops(OpKind::add) == h * keys * (d - 1));
    CHECK(named(rs, attn + ".context").counts.ops(OpKind::mul) == h * keys * d);
    CHECK(named(rs, attn + ".softmax").counts.ops(OpKind::exp) == h * keys);
  }
  // rotary on the 2 new tokens' 4 query and 2 key heads, all 2 dims: 2 muls + 1 add per element
  CHECK(named(rs, "layer0.attn.rotary").counts.ops(OpKind::mul) == 2 * (4 + 2) * 2 * 2);
  CHECK(named(rs, "layer0.attn.rotary").counts.ops(OpKind::add) == 2 * (4 + 2) * 2);
  // RMSNorm row of 8: 3·8 + 1 muls, 8 adds, 1 div, 1 sqrt; paper: 2 MACs per element, as LayerNorm
  CHECK(named(rs, "layer0.norm1").counts.ops(OpKind::mul) == 2 * (3 * 8 + 1));
  CHECK(named(rs, "layer0.norm1").counts.ops(OpKind::add) == 2 * 8);
  CHECK(named(records(zoo, "tiny", decode(3, 2), Convention::paper), "layer0.norm1").counts.ops(OpKind::mul) ==
        2 * 2 * 8);
  // SwiGLU: silu on 2·12 elements (1 exp, 1 add, 1 div each), gate product 2·12 muls
  CHECK(named(rs, "layer0.silu").counts.ops(OpKind::exp) == 24);
  CHECK(named(rs, "layer0.gate_mul").counts.ops(OpKind::mul) == 24);
  CHECK(named(rs, "lm_head").counts.ops(OpKind::mul) == 2 * 8 * 10);
}

TEST_CASE("a grouped-query decode step reads each K/V head once: a K/V head's query heads as one product's rows") {
  const ModelZoo zoo = ModelZoo::parse(kTinyZoo, "tiny");
  // tiny: 4 query heads over 2 K/V heads (group 2), head width 2; tiny_gpt: 4 over 4. One step over 3 cached keys.
  const std::vector<OpRecord> gqa = records(zoo, "tiny", decode(3, 1), Convention::exact),
                              mha = records(zoo, "tiny_gpt", decode(3, 1), Convention::exact);
  const OpRecord &scores = named(gqa, "layer0.attn.scores"), &scores_mha = named(mha, "layer0.attn.scores");
  CHECK((scores.batch == 2 && scores.m == 2 && scores.n == 4 && scores.k == 2));
  CHECK((scores_mha.batch == 4 && scores_mha.m == 1 && scores_mha.n == 4 && scores_mha.k == 2));
  for (const char* op : {"layer0.attn.scores", "layer0.attn.softmax", "layer0.attn.context"})
    for (OpKind k : kAllOpKinds) CHECK(named(gqa, op).counts.ops(k) == named(mha, op).counts.ops(k));
  // bytes read by the scores: Q (4 heads × 2) and K (K/V heads × 4 keys × 2), each element once
  const std::uint64_t q = storage_bytes(scores.a_dtype, 4 * 2);
  CHECK(scores.counts.read_bytes() == q + storage_bytes(scores.b_dtype, 2 * 4 * 2));
  CHECK(scores_mha.counts.read_bytes() == q + storage_bytes(scores.b_dtype, 4 * 4 * 2));
  // V likewise: the context reads the probabilities (4 heads × 4 keys, fp32) and V once per K/V head
  CHECK(named(gqa, "layer0.attn.context").counts.read_bytes() ==
        storage_bytes(DType::fp32, 4 * 4) + storage_bytes(scores.b_dtype, 2 * 4 * 2));
  // Two decode steps: each its own token over its keys, grouped the same way (the second over 5 keys)
  const OpRecord& second = named(records(zoo, "tiny", decode(3, 2), Convention::exact), "layer0.attn.step1.scores");
  CHECK((second.batch == 2 && second.m == 2 && second.n == 5 && second.k == 2));
  // Several new tokens in one pass attend different keys (causal: a prefill): the query heads stay apart, one
  // product each, K still read once per K/V head in the bytes: Q (4 heads × 6 tokens × 2), K (2 K/V heads × 6 × 2)
  const std::vector<OpRecord> gqa_prefill = records(zoo, "tiny", prefill(6), Convention::exact),
                              mha_prefill = records(zoo, "tiny_gpt", prefill(6), Convention::exact);
  const OpRecord& causal = named(gqa_prefill, "layer0.attn.scores");
  CHECK((causal.batch == 4 && causal.m == 6 && causal.params.contains("causal")));
  CHECK(causal.params.at("kv_groups") == 2);  // the K/V heads the GPU model charges K and V for
  // one query head a K/V head: no grouping to mark
  CHECK_FALSE(named(mha_prefill, "layer0.attn.scores").params.contains("kv_groups"));
  CHECK(causal.counts.read_bytes() ==
        storage_bytes(causal.a_dtype, 4 * 6 * 2) + storage_bytes(causal.b_dtype, 2 * 6 * 2));
}

TEST_CASE("prefill is causal, and a prefill of N then T decode steps does the work of a prefill of N + T") {
  const ModelZoo zoo = ModelZoo::parse(kTinyZoo, "tiny");
  for (const std::string model : {"tiny", "tiny_gpt"}) {
    INFO(model);
    for (const Layer& l : zoo.build(model, prefill(6)))
      if (const auto* a = std::get_if<AttentionConfig>(&l.op)) CHECK((a->causal && a->key_count() == 6));
    CHECK(named(records(zoo, model, prefill(6), Convention::exact), "layer1.attn.scores").counts.ops(OpKind::mul) ==
          4 * attended_pairs(6, 6, true) * 2);
    for (Convention c : {Convention::exact, Convention::paper}) {
      const OpCounts whole = total(zoo, model, prefill(9), c);
      OpCounts parts = total(zoo, model, prefill(6), c);
      parts += total(zoo, model, decode(6, 3), c);
      for (OpKind k : kAllOpKinds) CHECK(whole.ops(k) == parts.ops(k));  // bytes differ: weights read per pass
    }
  }
}

TEST_CASE("a Hugging Face config and its zoo entry build the same records") {
  const ModelZoo zoo = ModelZoo::builtin();
  for (const std::string model : {"llama2_7b", "llama3_8b", "llama3_70b", "mistral_7b", "qwen2_7b", "qwen3_8b",
                                  "phi3_mini_4k", "gemma_7b", "gemma_2b", "gpt2_medium", "pythia_1_4b"}) {
    INFO(model);
    for (const ModelOptions& o : {prefill(64), decode(100, 2)})
      for (Convention c : {Convention::exact, Convention::paper})
        CHECK(records(hf(model), hf_model(model), o, c) == records(zoo, model, o, c));
  }
}

TEST_CASE("GPT-2 small from its config.json (decoder family) counts as the zoo's gpt2_small (encoder family)") {
  const ModelZoo zoo = ModelZoo::builtin();
  // every causal variant: those sharing one q/k projection (the EcoFormer family, Reformer) project no keys; their
  // operations agree, their bytes not (the encoder family projects q/k and v apart, reading its input twice)
  for (const AttentionVariant v : {AttentionVariant::msa, AttentionVariant::performer, AttentionVariant::ecoformer,
                                   AttentionVariant::reformer, AttentionVariant::sliding})
    for (Convention c : {Convention::exact, Convention::paper}) {
      INFO(name(v));
      ModelOptions encoder;  // the zoo's default: 1024 tokens, causal
      encoder.attention.variant = v;
      ModelOptions decoder = prefill(1024);
      decoder.attention.variant = v;
      const OpCounts from_config = total(hf("gpt2_small"), hf_model("gpt2_small"), decoder, c),
                     from_zoo = total(zoo, "gpt2_small", encoder, c);
      for (OpKind k : kAllOpKinds) CHECK(from_config.ops(k) == from_zoo.ops(k));
      if (!variant_info(v).shares_qk) CHECK(from_config == from_zoo);
    }
}

TEST_CASE("decoder features: GQA projections, partial rotary, parallel attention, sliding window") {
  const ModelZoo zoo = ModelZoo::builtin();
  const std::vector<OpRecord> llama3 = records(zoo, "llama3_8b", prefill(16), Convention::exact);
  CHECK(named(llama3, "layer0.attn.qkv").n == (32 + 2 * 8) * 128);
  const std::vector<OpRecord> pythia = records(zoo, "pythia_1_4b", prefill(16), Convention::exact);
  CHECK(named(pythia, "layer0.attn.rotary").n == 32);  // rotary_pct 0.25 of 128
  CHECK(named(pythia, "layer0.attn.rotary").m == 16 * (16 + 16));
  // parallel attention: both norms read the block input, residuals after the MLP; the same counts as sequential
  const ModelZoo sequential =
      ModelZoo::parse(R"({"seq": {"extends": "pythia_1_4b", "parallel_attention": false}})", "t").overlaying(zoo);
  CHECK(total(sequential, "seq", prefill(16), Convention::exact) ==
        total(zoo, "pythia_1_4b", prefill(16), Convention::exact));
  // Mistral's 4,096-token window: the default prefill is the window; beyond it is refused
  CHECK(zoo.decoder_facts("mistral_7b", {})->context == 4096);
  CHECK_THROWS_WITH(zoo.build("mistral_7b", prefill(8192)), Catch::Contains("'sliding_window' (4096)"));
  CHECK_THROWS_WITH(zoo.build("mistral_7b", decode(4096, 1)), Catch::Contains("sliding_window"));
  // decode steps are an attention layer a block each: past 2^20 of them (Llama-3.1-8B's 32 blocks × 32,768 steps)
  // refused, naming the parts to count instead (a million steps ran the memory out)
  CHECK_THROWS_WITH(zoo.build("llama3_1_8b", decode(1, 32769)),
                    Catch::Contains("1048608 attention steps, above the 1048576") && Catch::Contains("in parts"));
  CHECK_THROWS_WITH(zoo.decoder_facts("llama3_1_8b", decode(1, 1000000)), Catch::Contains("in parts"));
  // a variant without a causal form is refused, not made bidirectional
  ModelOptions linformer = prefill(64);
  linformer.attention.variant = AttentionVariant::linformer;
  CHECK_THROWS_WITH(zoo.build("llama2_7b", linformer), Catch::Contains("linformer has no causal form"));
  // a phase is for decoders only
  CHECK_THROWS_WITH(zoo.build("bert_base", prefill(64)), Catch::Contains("not a decoder"));
  CHECK(!zoo.decoder_facts("bert_base", {}));
  // --scope attention keeps a decoder's projections and rotary with its attention core
  std::size_t attention_layers = 0;
  for (const Layer& l : zoo.build("pythia_1_4b", prefill(16))) attention_layers += is_attention(l);
  CHECK(attention_layers == 24 * 4);
}

TEST_CASE("a decoder entry of a user's zoo file: bad values and unknown keys are errors naming the key") {
  const auto error_of = [](const std::string& changes) {
    try {
      (void)ModelZoo::parse(R"({"m": {"extends": "llama3_8b", )" + changes + "}}", "zoo.json")
          .overlaying(ModelZoo::builtin())
          .build("m", {});
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(R"("layers": 2)").empty());
  CHECK_THAT(error_of(R"("norm": "batchnorm")"), Catch::Contains("'norm' must be one of rmsnorm, layernorm"));
  CHECK_THAT(error_of(R"("mlp": "reglu")"), Catch::Contains("'mlp' must be one of swiglu, geglu, gelu"));
  CHECK_THAT(error_of(R"("num_kv_heads": 5)"), Catch::Contains("'num_kv_heads' (5) must divide 'num_heads' (32)"));
  CHECK_THAT(error_of(R"("layers": 1000000000)"), Catch::Contains("'layers' must be at most 256"));
  CHECK_THAT(error_of(R"("max_position_embeddings": 1000000000000)"),
             Catch::Contains("'max_position_embeddings' must be at most 16777216"));
  CHECK_THAT(error_of(R"("rotary_fraction": 0)"), Catch::Contains("'rotary_fraction' must be a number in (0, 1]"));
  CHECK_THAT(error_of(R"("position": "learned", "rotary_fraction": 0.5)"),
             Catch::Contains("'rotary_fraction' applies to rotary position embedding only"));
  CHECK_THAT(error_of(R"("num_experts": 8)"),
             Catch::Contains("zoo.json: m.num_experts: unknown key for family 'decoder'"));
}
