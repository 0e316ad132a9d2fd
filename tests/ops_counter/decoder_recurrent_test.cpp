// Causal and recurrent forms of the linear variants (Performer, the EcoFormer family): a prefill of N counts the
// operations of its N decode steps, a decode step by hand, the recurrent state's bytes constant in the context, and
// on a decoder model the decode energy per token (ops × the 45 nm table) of MSA linear in the context while the
// recurrent variants' stays flat.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <tuple>

#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "record_helpers.hpp"

using namespace ecosim;

namespace {

constexpr AttentionVariant kRecurrent[] = {AttentionVariant::performer,     AttentionVariant::ecoformer,
                                           AttentionVariant::fp_ecoformer,  AttentionVariant::bi_ecoformer,
                                           AttentionVariant::lsh_ecoformer, AttentionVariant::klsh_ecoformer};

OpCounts attention(const AttentionConfig& c, Convention convention) {
  OpCounter counter;
  emit_attention("attn", c, convention, counter);
  return counter.total();
}

/// A causal block of `queries` new tokens ending at `keys` keys, small enough to count by hand.
AttentionConfig causal(AttentionVariant v, std::uint64_t queries, std::uint64_t keys) {
  return {.variant = v,
          .heads = 2,
          .seq = queries,
          .head_dim = 4,
          .keys = keys,
          .causal = true,
          .bits = 3,
          .support = 5,
          .features = 8};
}

ModelOptions decode_step(AttentionVariant v, std::uint64_t keys) {  // the step that makes the context `keys` tokens
  ModelOptions o;
  o.attention.variant = v;
  o.phase.phase = Phase::decode;
  o.phase.context = keys - 1;
  o.phase.tokens = 1;
  return o;
}

ModelOptions prefill(AttentionVariant v, std::uint64_t seq) {
  ModelOptions o;
  o.attention.variant = v;
  o.phase.phase = Phase::prefill;
  o.seq_len = seq;
  return o;
}

OpCounts model_total(const ModelZoo& zoo, const std::string& model, const ModelOptions& o) {
  OpCounter counter;
  for (const Layer& l : zoo.build(model, o)) emit(l, Convention::exact, counter);
  return counter.total();
}

constexpr std::uint64_t kContexts[] = {1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072};

}  // namespace

TEST_CASE("causal recurrent variants: a prefill of N counts exactly the operations of its N decode steps") {
  for (AttentionVariant v : kRecurrent)
    for (Convention convention : {Convention::exact, Convention::paper}) {
      INFO(name(v) << (convention == Convention::exact ? " exact" : " paper"));
      const std::uint64_t n = 7;
      OpCounts steps;  // token P + 1 over the state of the P before it
      for (std::uint64_t p = 0; p < n; ++p) steps += attention(causal(v, 1, p + 1), convention);
      const OpCounts whole = attention(causal(v, n, n), convention);
      for (OpKind k : kAllOpKinds) CHECK(whole.ops(k) == steps.ops(k));  // bytes differ: each step reads the state
      // and a prefill of 3 followed by a block of 4 over the state of those 3
      OpCounts parts = attention(causal(v, 3, 3), convention);
      parts += attention(causal(v, 4, n), convention);
      for (OpKind k : kAllOpKinds) CHECK(whole.ops(k) == parts.ops(k));
    }
}

TEST_CASE("a Performer decode step by hand: the new key folded onto the state, constant in the context") {
  // H = 2 heads, d = 4, F = 8 features, 1 query over a state of P earlier keys
  for (std::uint64_t keys : {2, 100, 100000}) {
    INFO(keys);
    test::RecordingSink sink;
    emit_attention("attn", causal(AttentionVariant::performer, 1, keys), Convention::exact, sink);
    const OpRecord* kv = nullptr;
    const OpRecord* k_sum = nullptr;
    for (const OpRecord& r : sink.records) {
      if (r.name == "attn.kv") kv = &r;
      if (r.name == "attn.k_sum") k_sum = &r;
    }
    REQUIRE((kv && k_sum));
    // φ(k)vᵀ of one key: 2·8·4 products, each added onto S; z += φ(k): 2·8 additions
    CHECK(kv->counts.ops(OpKind::mul) == 2 * 8 * 4);
    CHECK(kv->counts.ops(OpKind::add) == 2 * 8 * 4);
    CHECK(kv->counts.read_bytes() == (2 * 8 * 1 + 2 * 1 * 4 + 2 * 8 * 4) * 4);  // φ(k), v and the held S, fp32
    CHECK(k_sum->counts.ops(OpKind::add) == 2 * 8);
    // the state: S (2·8·4), z (2·8) and each head's key stabiliser (2), fp32
    CHECK(recurrent_state_bytes(causal(AttentionVariant::performer, 1, keys)) == (2 * 8 * 4 + 2 * 8 + 2) * 4);
  }
  // EcoFormer's: M (b×d fp32), s (b int32), Σv (d fp32) per head
  CHECK(recurrent_state_bytes(causal(AttentionVariant::ecoformer, 1, 100)) == 2 * (3 * 4 * 4 + 3 * 4 + 4 * 4));
  CHECK(recurrent_state_bytes(causal(AttentionVariant::msa, 1, 100)) == 0);  // it keeps its keys
}

TEST_CASE("decoder with a recurrent variant: the state replaces the KV cache and stays constant in the context") {
  const ModelZoo zoo = ModelZoo::builtin();
  // Qwen2-7B: 28 layers of 28 query heads over 4 KV heads, d = 128 (positions up to 131,072): Performer's state
  // one per KV head; EcoFormer's keys are its queries, so its sums over keys (M, s) are per query head and only its
  // sum of values (z) per KV head
  const std::uint64_t layers = 28, heads = 28, kv_heads = 4, d = 128, f = default_of(VariantParameterId::features),
                      b = default_of(VariantParameterId::bits);
  const std::uint64_t performer_state = layers * kv_heads * (f * d + f + 1) * 4;  // S, z and the key stabiliser
  const std::uint64_t ecoformer_state = layers * (heads * (b * d * 4 + b * 4) + kv_heads * d * 4);
  for (std::uint64_t keys : kContexts) {
    INFO(keys);
    const DecoderFacts p = *zoo.decoder_facts("qwen2_7b", decode_step(AttentionVariant::performer, keys));
    CHECK(p.kv_cache_bytes == performer_state);
    CHECK(p.recurrent_state_bytes == performer_state);
    CHECK(p.kv_bytes_per_token == 0);
    CHECK(p.kv_read_bytes == performer_state);  // the step reads the state it starts from, and writes it
    CHECK(p.kv_write_bytes == performer_state);
    CHECK(zoo.decoder_facts("qwen2_7b", decode_step(AttentionVariant::ecoformer, keys))->kv_cache_bytes ==
          ecoformer_state);
    const DecoderFacts msa = *zoo.decoder_facts("qwen2_7b", decode_step(AttentionVariant::msa, keys));
    CHECK(msa.kv_cache_bytes == keys * msa.kv_bytes_per_token);
    CHECK(msa.recurrent_state_bytes == 0);
  }
  // a prefill ends with the same state, written once
  const DecoderFacts pre = *zoo.decoder_facts("qwen2_7b", prefill(AttentionVariant::performer, 4096));
  CHECK(pre.kv_cache_bytes == performer_state);
  CHECK(pre.kv_write_bytes == performer_state);
  CHECK(pre.kv_read_bytes == 0);
}

TEST_CASE("grouped-query attention: sums over keys per key head, of values per KV head, the readout per query head") {
  for (AttentionVariant v : kRecurrent) {
    INFO(name(v));
    AttentionConfig mha = causal(v, 1, 50);
    mha.heads = 4;
    AttentionConfig gqa = mha;
    gqa.kv_heads = 2;  // each KV head shared by 2 query heads
    // Performer's keys have the KV heads: its whole state halves. The EcoFormer family's keys are its queries (one
    // shared projection): M and s stay per query head, and only z, the sum of the d values, halves.
    const bool keys_are_queries = variant_info(v).shares_qk;
    if (keys_are_queries) {
      CHECK(recurrent_state_bytes(mha) - recurrent_state_bytes(gqa) == (4 - 2) * mha.head_dim * 4);
    } else {
      CHECK(recurrent_state_bytes(gqa) * 2 == recurrent_state_bytes(mha));
      AttentionConfig one = mha;
      one.heads = one.kv_heads = 1;  // the per-head state
      CHECK(recurrent_state_bytes(gqa) == 2 * recurrent_state_bytes(one));
    }
    test::RecordingSink mha_records, gqa_records;
    emit_attention("attn", mha, Convention::exact, mha_records);
    emit_attention("attn", gqa, Convention::exact, gqa_records);
    REQUIRE(mha_records.records.size() == gqa_records.records.size());
    for (std::size_t i = 0; i < mha_records.records.size(); ++i) {
      const OpRecord& m = mha_records.records[i];
      const OpRecord& g = gqa_records.records[i];
      INFO(m.name);
      const bool state_update = keys_are_queries
                                    ? m.name == "attn.value_sum"
                                    : m.name == "attn.kv" || m.name == "attn.k_sum" || m.name.starts_with("attn.k_");
      for (OpKind k : kAllOpKinds)  // the state's update over half the heads; the queries' work unchanged
        CHECK(g.counts.ops(k) * (state_update ? 2 : 1) == m.counts.ops(k));
    }
  }
  AttentionConfig bad = causal(AttentionVariant::performer, 1, 50);
  bad.heads = 4;
  bad.kv_heads = 3;
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("kv heads (3) must divide heads (4)"));
}

TEST_CASE("decoder with grouped-query attention: state bytes by hand, per KV head or per query head") {
  const ModelZoo zoo = ModelZoo::builtin();
  const std::uint64_t d = 128, f = default_of(VariantParameterId::features), b = default_of(VariantParameterId::bits);
  // Performer per KV head; EcoFormer M and s per query head (its keys are its queries), z per KV head
  const std::uint64_t performer_head = (f * d + f + 1) * 4, ecoformer_keys = b * d * 4 + b * 4,
                      ecoformer_values = d * 4;
  // Llama-3-8B: 32 layers, 32 query heads over 8 KV heads; Qwen2-7B: 28 layers, 28 over 4
  for (const auto& [model, layers, heads, kv_heads] :
       {std::tuple{"llama3_8b", 32, 32, 8}, std::tuple{"qwen2_7b", 28, 28, 4}}) {
    INFO(model);
    const auto l = static_cast<std::uint64_t>(layers), h = static_cast<std::uint64_t>(heads),
               kv = static_cast<std::uint64_t>(kv_heads);
    CHECK(zoo.decoder_facts(model, decode_step(AttentionVariant::performer, 4096))->recurrent_state_bytes ==
          l * kv * performer_head);
    CHECK(zoo.decoder_facts(model, decode_step(AttentionVariant::ecoformer, 4096))->recurrent_state_bytes ==
          l * (h * ecoformer_keys + kv * ecoformer_values));
  }
  // Reformer keeps its keys: they are its queries, so its cache holds them per query head and the values per KV
  // head — (32 + 8)·128 fp16 elements a layer on Llama-3-8B, where MSA's holds (8 + 8)·128
  CHECK(zoo.decoder_facts("llama3_8b", decode_step(AttentionVariant::reformer, 4096))->kv_bytes_per_token ==
        32 * (32 + 8) * 128 * 2);
  CHECK(zoo.decoder_facts("llama3_8b", decode_step(AttentionVariant::msa, 4096))->kv_bytes_per_token ==
        32 * (8 + 8) * 128 * 2);
  // a Reformer step reads, in each of its R rounds, the (before + 1)·L keys ending at it: R·(before + 1)·L cached
  // tokens of the 4,096 (MSA's step reads them all), each query head its own keys and the values at its own
  // positions — (32 + 32)·128 elements a token and layer, not the (32 + 8)·128 cached
  const std::uint64_t reformer_reads = default_of(VariantParameterId::hashes) *
                                       (default_of(VariantParameterId::chunks_before) + 1) *
                                       default_of(VariantParameterId::chunk);
  const DecoderFacts reformer = *zoo.decoder_facts("llama3_8b", decode_step(AttentionVariant::reformer, 4096));
  const std::uint64_t reformer_read_per_token = 32 * (32 + 32) * 128 * 2;
  CHECK(reformer.kv_read_bytes == reformer_reads * reformer_read_per_token);
  const DecoderFacts msa = *zoo.decoder_facts("llama3_8b", decode_step(AttentionVariant::msa, 4096));
  CHECK(msa.kv_read_bytes == 4096 * msa.kv_bytes_per_token);
  // a cache shorter than that: all of it
  const DecoderFacts short_cache = *zoo.decoder_facts("llama3_8b", decode_step(AttentionVariant::reformer, 100));
  CHECK(short_cache.kv_read_bytes == 100 * reformer_read_per_token);
  // MHA (GPT-2 medium: 24 layers of 16 heads, d = 64, every head its own K/V): one state per head, as before
  const std::uint64_t f64 = (f * 64 + f + 1) * 4;
  CHECK(zoo.decoder_facts("gpt2_medium", decode_step(AttentionVariant::performer, 512))->recurrent_state_bytes ==
        24 * 16 * f64);
}

TEST_CASE("decode energy per token: MSA's grows linearly with the context, Performer's and EcoFormer's stay flat") {
  const ModelZoo zoo = ModelZoo::builtin();
  const TechTable tech = TechTable::builtin_45nm();
  auto energy_pj = [&](AttentionVariant v, std::uint64_t keys) {
    return tech.energy_pj(model_total(zoo, "qwen2_7b", decode_step(v, keys)));
  };
  std::vector<double> msa;
  for (std::uint64_t keys : kContexts) msa.push_back(energy_pj(AttentionVariant::msa, keys));
  // linear: every context doubling adds the energy of the keys added, the same per key
  const double per_key = (msa[1] - msa[0]) / static_cast<double>(kContexts[1] - kContexts[0]);
  CHECK(per_key > 0);
  for (std::size_t i = 1; i < msa.size(); ++i) {
    INFO(kContexts[i]);
    const double slope = (msa[i] - msa[i - 1]) / static_cast<double>(kContexts[i] - kContexts[i - 1]);
    CHECK(std::abs(slope / per_key - 1) < 1e-9);
  }
  CHECK(msa.back() > 2 * msa.front());  // at 128k attention dominates the step
  for (AttentionVariant v : {AttentionVariant::performer, AttentionVariant::ecoformer}) {
    INFO(name(v));
    const double first = energy_pj(v, kContexts[0]);
    for (std::uint64_t keys : kContexts) CHECK(energy_pj(v, keys) == first);
    CHECK(first < msa.back());
  }
}

TEST_CASE("decoder with a recurrent variant: a prefill of N then T decode steps does the work of a prefill of N + T") {
  const ModelZoo zoo = ModelZoo::builtin();
  for (AttentionVariant v : {AttentionVariant::performer, AttentionVariant::ecoformer}) {
    INFO(name(v));
    ModelOptions steps = decode_step(v, 40);
    steps.phase.context = 30;
    steps.phase.tokens = 10;
    OpCounts parts = model_total(zoo, "gpt2_medium", prefill(v, 30));
    parts += model_total(zoo, "gpt2_medium", steps);
    const OpCounts whole = model_total(zoo, "gpt2_medium", prefill(v, 40));
    for (OpKind k : kAllOpKinds) CHECK(whole.ops(k) == parts.ops(k));
  }
}

TEST_CASE("Linformer has no causal form: refused with the reason on a decoder") {
  const ModelZoo zoo = ModelZoo::builtin();
  CHECK_THROWS_WITH(zoo.build("llama3_8b", decode_step(AttentionVariant::linformer, 1024)),
                    Catch::Contains("is causal") && Catch::Contains("linformer has no causal form") &&
                        Catch::Contains("performer") && Catch::Contains("ecoformer") && Catch::Contains("reformer"));
  CHECK_NOTHROW(zoo.build("llama3_8b", prefill(AttentionVariant::reformer, 1024)));
  CHECK_NOTHROW(zoo.build("llama3_8b", decode_step(AttentionVariant::reformer, 1024)));
}

TEST_CASE("a Reformer decode step by hand: hashed, inserted, over the (before + 1)·L keys ending at it") {
  // 1 new token over Nk keys, L = 64, 1 chunk before, R = 2 rounds, 1 head, d = 2: W = 128 keys per round
  auto step = [](std::uint64_t keys) {
    const AttentionConfig c{.variant = AttentionVariant::reformer,
                            .heads = 1,
                            .seq = 1,
                            .head_dim = 2,
                            .projections = false,
                            .keys = keys,
                            .causal = true,
                            .hashes = 2,
                            .chunk = 64,
                            .chunks_before = 1};
    test::RecordingSink sink;
    emit_attention("attn", c, Convention::exact, sink);
    std::map<std::string, OpCounts> by_name;
    for (const OpRecord& r : sink.records) by_name[r.name] += r.counts;
    return by_name;
  };
  auto at_1000 = step(1000);
  CHECK(at_1000["attn.chunk_scores"].ops(OpKind::mul) == 2 * 128 * 2);
  CHECK(at_1000["attn.chunk_softmax"].ops(OpKind::exp) == 2 * 128);
  // nb = 16 buckets of 1000 keys: rotations 1 × (2·16/2) × 2; insertion ⌈log₂ 1000⌉ = 10 compares per round
  CHECK(at_1000["attn.rotations"].ops(OpKind::mul) == 16 * 2);
  CHECK(at_1000["attn.bucket_insert"].ops(OpKind::cmp) == 2 * 10);
  // beyond the window only the hashing grows (nb with Nk, the insertion with log₂ Nk)
  auto at_100000 = step(100000);
  CHECK(at_100000["attn.chunk_scores"].ops(OpKind::mul) == at_1000["attn.chunk_scores"].ops(OpKind::mul));
  CHECK(at_100000["attn.rotations"].ops(OpKind::mul) == 1564 * 2);  // nb = 1564 (1563 chunks, made even)
  CHECK(at_100000["attn.bucket_insert"].ops(OpKind::cmp) == 2 * 17);
  // fewer keys than the window: all of them
  CHECK(step(100)["attn.chunk_scores"].ops(OpKind::mul) == 2 * 100 * 2);
}

TEST_CASE("causal Reformer by hand: the within-bucket lower triangle, no wrapping around") {
  // N = 8 in chunks of 4, 1 chunk before, 1 round, 1 head, d = 2: chunk 0 sees its own triangle (4·5/2 = 10
  // pairs, not the wrapped chunk 1), chunk 1 all of chunk 0 and its own triangle (16 + 10); bidirectional: 2·4·8
  AttentionConfig c{.variant = AttentionVariant::reformer,
                    .heads = 1,
                    .seq = 8,
                    .head_dim = 2,
                    .projections = false,
                    .causal = true,
                    .hashes = 1,
                    .chunk = 4,
                    .chunks_before = 1};
  auto chunk_records = [](const AttentionConfig& a, Convention convention) {
    test::RecordingSink sink;
    emit_attention("attn", a, convention, sink);
    OpCounts scores, softmax;
    for (const OpRecord& r : sink.records) {
      if (r.name.starts_with("attn.chunk_scores")) scores += r.counts;
      if (r.name.starts_with("attn.chunk_softmax")) softmax += r.counts;
    }
    return std::pair{scores, softmax};
  };
  const std::uint64_t pairs = 10 + 26, rows = 8;
  const auto [scores, softmax] = chunk_records(c, Convention::exact);
  CHECK(scores.ops(OpKind::mul) == pairs * 2);
  CHECK(scores.ops(OpKind::add) == pairs * 1);
  CHECK(scores.written_bytes() == pairs * 4);
  CHECK(softmax.ops(OpKind::exp) == pairs);
  CHECK(softmax.ops(OpKind::add) == 2 * pairs - rows);
  CHECK(chunk_records(c, Convention::paper).first.ops(OpKind::mul) == pairs * 2);
  c.causal = false;
  CHECK(chunk_records(c, Convention::exact).first.ops(OpKind::mul) == 2 * 4 * 8 * 2);
}

TEST_CASE("sliding-window attention: each query over the W keys ending at it, by hand and on Mistral") {
  // 3 queries over 7 keys, W = 4: they see min(5, 4), min(6, 4), min(7, 4) keys; 4 queries over 4 keys, W = 2:
  // 1, 2, 2, 2; a decode step over 100 keys: W
  CHECK(attended_pairs(3, 7, true, 4) == 12);
  CHECK(attended_pairs(4, 4, true, 2) == 7);
  CHECK(attended_pairs(1, 100, true, 16) == 16);
  CHECK(attended_pairs(3, 7, true, 64) == attended_pairs(3, 7, true));  // a window beyond the keys: none
  AttentionConfig c{.variant = AttentionVariant::sliding,
                    .heads = 2,
                    .seq = 1,
                    .head_dim = 4,
                    .projections = false,
                    .keys = 100,
                    .causal = true,
                    .sliding_window = 16};
  test::RecordingSink sink;
  emit_attention("attn", c, Convention::exact, sink);
  REQUIRE(sink.records.size() == 4);
  CHECK(sink.records[0].n == 16);  // the step reads its window's keys only
  CHECK(sink.records[0].counts.ops(OpKind::mul) == 2 * 16 * 4);
  // Mistral-7B's own attention is its 4,096-token window: a decode step's work and cache stop growing at W
  const ModelZoo zoo = ModelZoo::builtin();
  ModelOptions at_window = decode_step(AttentionVariant::sliding, 4096),
               beyond = decode_step(AttentionVariant::sliding, 32768);
  at_window.native_attention = beyond.native_attention = true;
  const DecoderFacts w = *zoo.decoder_facts("mistral_7b", at_window), b = *zoo.decoder_facts("mistral_7b", beyond);
  CHECK(w.kv_cache_bytes == 4096 * w.kv_bytes_per_token);
  CHECK(b.kv_cache_bytes == w.kv_cache_bytes);
  CHECK(b.kv_read_bytes == w.kv_read_bytes);
  const OpCounts at = model_total(zoo, "mistral_7b", at_window), past = model_total(zoo, "mistral_7b", beyond);
  for (OpKind k : kAllOpKinds) CHECK(at.ops(k) == past.ops(k));
  // MSA on Mistral beyond its window stays refused
  CHECK_THROWS_WITH(zoo.build("mistral_7b", decode_step(AttentionVariant::msa, 8192)),
                    Catch::Contains("sliding_window"));
  // --attention sliding on a model without a window: the option's W; within W it is MSA
  ModelOptions within = decode_step(AttentionVariant::sliding, 2048);
  const OpCounts sliding_msa = model_total(zoo, "llama3_8b", within),
                 msa = model_total(zoo, "llama3_8b", decode_step(AttentionVariant::msa, 2048));
  for (OpKind k : kAllOpKinds) CHECK(sliding_msa.ops(k) == msa.ops(k));
}
