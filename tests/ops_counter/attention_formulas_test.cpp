// Attention counts against hand-computed values (exact) and the DESIGN §3 paper formulas written out here
// independently of the implementation.
#include <catch2/catch.hpp>

#include <map>

#include "record_helpers.hpp"

using namespace ecosim;

namespace {

OpCounts attention(AttentionConfig c, Convention convention) {
  OpCounter counter;
  emit_attention("attn", c, convention, counter);
  return counter.total();
}

AttentionConfig small(AttentionVariant v) {
  return {.variant = v, .batch = 1, .heads = 2, .seq = 3, .head_dim = 4, .projections = false, .bits = 4, .support = 2};
}

/// A layer over a 4×6 token grid (SRA, LSA): batch 2, 24 tokens of head width 4.
AttentionConfig grid_layer(AttentionVariant v, std::uint64_t heads) {
  return {.variant = v, .batch = 2, .heads = heads, .seq = 24, .head_dim = 4, .grid_height = 4};
}

}  // namespace

TEST_CASE("MSA exact: QKᵀ, scaling, softmax and AV by hand (H=2, N=3, C=4)") {
  const OpCounts e = attention(small(AttentionVariant::msa), Convention::exact);
  // QKᵀ: 2·3·3·4 muls, 2·9·3 adds; scale: 18 muls; softmax rows of 3: 3 muls, 5 adds, 2 cmp, 3 exp, 1 div;
  // AV: 2·3·4·3 muls, 2·3·4·2 adds
  CHECK(e.ops(OpKind::mul) == 72 + 18 + 6 * 3 + 72);
  CHECK(e.ops(OpKind::add) == 54 + 6 * 5 + 48);
  CHECK(e.ops(OpKind::cmp) == 12);
  CHECK(e.ops(OpKind::exp) == 18);
  CHECK(e.ops(OpKind::div) == 6);
}

TEST_CASE("MSA paper: muls 2·N²·dim + H·N², adds 2·N²·dim per batch entry") {
  for (std::uint64_t b : {1, 3})
    for (std::uint64_t h : {1, 5}) {
      AttentionConfig c{
          .variant = AttentionVariant::msa, .batch = b, .heads = h, .seq = 49, .head_dim = 32, .projections = false};
      const std::uint64_t n = c.seq, dim = h * c.head_dim;
      const OpCounts p = attention(c, Convention::paper);
      CHECK(p.ops(OpKind::mul) == b * (2 * n * n * dim + h * n * n));
      CHECK(p.ops(OpKind::add) == b * (2 * n * n * dim));
    }
}

TEST_CASE("EcoFormer paper: the DESIGN §3 terms summed") {
  for (auto [h, n, c, m, b] : {std::array<std::uint64_t, 5>{2, 3, 4, 2, 4}, {5, 196, 32, 25, 16}}) {
    AttentionConfig cfg = small(AttentionVariant::ecoformer);  // batch 1, no projections
    cfg.heads = h, cfg.seq = n, cfg.head_dim = c, cfg.bits = b, cfg.support = m;
    const std::uint64_t muls = 2 * h * n * m                 // kernel
                               + h * n * m * b               // hashing
                               + h * n * b + h * n           // normaliser
                               + h * n * c;                  // final scaling
    const std::uint64_t adds = 2 * h * n * m * c             // kernel
                               + h * n * m * b               // hashing
                               + h * n * b                   // key cumulative sum
                               + h * n * b                   // normaliser
                               + h * n * b * c               // context
                               + h * n * b * c + h * n * c;  // output
    const OpCounts p = attention(cfg, Convention::paper);
    CHECK(p.ops(OpKind::mul) == muls);
    CHECK(p.ops(OpKind::add) == adds);
  }
}

TEST_CASE("EcoFormer exact by hand (H=2, N=3, C=4, m=2, b=4)") {
  const OpCounts e = attention(small(AttentionVariant::ecoformer), Convention::exact);
  // per head: normalise 3 rows (8 mul, 3 add, 1 sqrt, 1 cmp, 1 div each);
  // hash: ‖x−a‖² 6·(4 mul, 7 add); σ: 5 adds, 2 muls, 1 div, 1 cmp (σ kept above 0); −d/2σ 6 muls; exp 6;
  //       centre each anchor's column over the 3 tokens: 2·2 + 6 adds, 2 muls;
  //       projection 3·4·2 muls, 3·4·1 adds; sign 12 cmp
  // code sum 4·2 int adds; value sum 4·2 adds + 4 muls; context 4·4·2 adds; numerator 3·4·3 + 12 adds;
  // denominator 3·3 + 3 int adds; normalise 3·4 muls + 3 divs
  const std::uint64_t heads = 2;
  CHECK(e.ops(OpKind::mul, DType::fp32) == heads * (24 + 24 + 2 + 6 + 2 + 24 + 4 + 12));
  CHECK(e.ops(OpKind::add, DType::fp32) == heads * (9 + 42 + 5 + 10 + 12 + 8 + 32 + 48));
  CHECK(e.ops(OpKind::add, DType::int32) == heads * (8 + 12));
  CHECK(e.ops(OpKind::cmp) == heads * (3 + 1 + 12));
  CHECK(e.ops(OpKind::exp) == heads * 6);
  CHECK(e.ops(OpKind::div) == heads * (3 + 1 + 3));
  CHECK(e.ops(OpKind::sqrt) == heads * 3);
  CHECK(e.ops(OpKind::mul, DType::int32) == 0);  // codes never multiply
}

TEST_CASE("binary codes make the attention products additions — FP-EcoFormer multiplies") {
  const OpCounts bin = attention(small(AttentionVariant::ecoformer), Convention::exact);
  const OpCounts fp = attention(small(AttentionVariant::fp_ecoformer), Convention::exact);
  CHECK(fp.ops(OpKind::mul) > bin.ops(OpKind::mul));
  CHECK(fp.ops(OpKind::cmp) < bin.ops(OpKind::cmp));  // no sign
  test::RecordingSink sink;
  emit_attention("a", small(AttentionVariant::ecoformer), Convention::exact, sink);
  for (const auto& r : sink.records)
    if (r.kind == OpClass::popcount_accumulate) {
      CHECK(r.a_dtype == DType::binary);
      CHECK(r.counts.ops(OpKind::mul) == 0);
    }
}

TEST_CASE("variants differ as their algorithms say") {
  AttentionConfig c{.batch = 1, .heads = 1, .seq = 1024, .head_dim = 32, .projections = false};
  auto muls = [&](AttentionVariant v) {
    c.variant = v;
    return attention(c, Convention::exact).ops(OpKind::mul);
  };
  // Linformer with k = 256 and Performer with 256 features are linear in N; MSA quadratic
  CHECK(muls(AttentionVariant::linformer) < muls(AttentionVariant::msa));
  CHECK(muls(AttentionVariant::performer) < muls(AttentionVariant::msa));
  CHECK(muls(AttentionVariant::reformer) < muls(AttentionVariant::msa));
  CHECK(muls(AttentionVariant::ecoformer) < muls(AttentionVariant::performer));
  // bi-ecoformer uses the d feature signs as its code: b = d
  c.variant = AttentionVariant::bi_ecoformer;
  CHECK(c.code_bits() == 32);
}

TEST_CASE("Linformer exact: two length projections, then softmax attention over k keys") {
  AttentionConfig c{
      .variant = AttentionVariant::linformer, .seq = 10, .head_dim = 4, .projections = false, .proj_k = 3};
  const OpCounts e = attention(c, Convention::exact);
  // E·K and E·V: 2·(4·3·10) muls; scores 10·3·4; scale 30; softmax 10 rows of 3 (3 muls); context 10·4·3
  CHECK(e.ops(OpKind::mul) == 240 + 120 + 30 + 30 + 120);
  CHECK(e.ops(OpKind::add) == 2 * 4 * 3 * 9 + 10 * 3 * 3 + 10 * 5 + 10 * 4 * 2);
}

TEST_CASE("Reformer chunks: uneven last chunk and wrap-around keys") {
  // N = 5, chunk 2: chunks of 2, 2, 1; each attends to itself and the previous (wrapping): keys 2+1, 2+2, 1+2
  AttentionConfig c{.variant = AttentionVariant::reformer,
                    .seq = 5,
                    .head_dim = 1,
                    .projections = false,
                    .hashes = 1,
                    .chunk = 2,
                    .chunks_before = 1};
  test::RecordingSink sink;
  emit_attention("a", c, Convention::exact, sink);
  std::uint64_t pairs = 0;
  for (const auto& r : sink.records)
    if (r.name.find("chunk_scores") != std::string::npos) pairs += r.batch * r.m * r.n;
  CHECK(pairs == 2 * 3 + 2 * 4 + 1 * 3);
  CHECK(reformer_buckets(c) == 4);
}

TEST_CASE("projections: fused qkv for softmax variants, shared qk + v for hashed ones") {
  AttentionConfig c{.variant = AttentionVariant::msa, .batch = 2, .heads = 2, .seq = 8, .head_dim = 4};
  OpCounts with = attention(c, Convention::paper), without;
  c.projections = false;
  without = attention(c, Convention::paper);
  const std::uint64_t tokens = 16, width = 8;
  CHECK(with.ops(OpKind::mul) - without.ops(OpKind::mul) == tokens * width * 3 * width + tokens * width * width);
  c.variant = AttentionVariant::ecoformer;
  c.support = 4;
  const OpCounts core = attention(c, Convention::paper);
  c.projections = true;
  CHECK(attention(c, Convention::paper).ops(OpKind::mul) - core.ops(OpKind::mul) == 3 * tokens * width * width);
}

TEST_CASE("bad attention parameters are rejected with the parameter named") {
  AttentionConfig c = small(AttentionVariant::ecoformer);
  c.bits = 65;
  CHECK_THROWS_WITH(attention(c, Convention::exact), Catch::Contains("bits"));
  c = small(AttentionVariant::ecoformer);
  c.support = 4;  // m > N
  CHECK_THROWS_WITH(attention(c, Convention::exact), Catch::Contains("support"));
  c = small(AttentionVariant::msa);
  c.seq = 0;
  CHECK_THROWS_WITH(attention(c, Convention::exact), Catch::Contains("seq"));
}

TEST_CASE("huge but valid dimensions overflow with an error, not a wrapped count") {
  AttentionConfig c{.variant = AttentionVariant::msa,
                    .batch = 1u << 24,
                    .heads = 256,
                    .seq = 1u << 24,
                    .head_dim = 65536,
                    .projections = false};
  CHECK_THROWS_WITH(attention(c, Convention::exact), Catch::Contains("overflows"));
}

TEST_CASE("SRA: sr = 1 is MSA — sr > 1 reduces the keys by a strided conv of the token grid") {
  AttentionConfig c = grid_layer(AttentionVariant::sra, 2);
  c.sr_ratio = 1;
  AttentionConfig msa = c;
  msa.variant = AttentionVariant::msa;
  for (Convention convention : {Convention::paper, Convention::exact}) {
    c.projections = msa.projections = false;
    CHECK(attention(c, convention) == attention(msa, convention));
    c.projections = msa.projections = true;  // q + kv Linear do the qkv Linear's work (reading x twice)
    for (OpKind k : {OpKind::mul, OpKind::add})
      CHECK(attention(c, convention).ops(k) == attention(msa, convention).ops(k));
  }
  // 4×6 grid, k = s = 2: 2×3 = 6 keys. Paper convention (MACs as mul + add):
  c.sr_ratio = 2;
  CHECK(sra_keys(c) == 6);
  c.projections = false;  // the core keeps its reduction (how SRA reduces its keys), not q and kv
  const std::uint64_t core_macs = 2 * 2 * 24 * 6 * 4 * 2;  // scores and context, B·H·N·keys·d each
  RecordingSink core;
  emit_attention("attn", c, Convention::paper, core);
  std::map<std::string, std::uint64_t> core_adds;
  for (const OpRecord& r : core.records) core_adds[r.name] += r.counts.ops(OpKind::add);
  CHECK(core_adds["attn.sr"] == 12 * 8 * (32 + 1));  // 2·6 outputs · 8 channels · (8·2·2 MACs + the bias)
  CHECK(core_adds["attn.sr_norm"] == 2 * 12 * 8);    // 2 MACs an element of the 12 reduced tokens
  CHECK(attention(c, Convention::paper).ops(OpKind::add) == core_macs + 12 * 8 * (32 + 1) + 2 * 12 * 8);
  CHECK(core_adds.count("attn.q") + core_adds.count("attn.kv") + core_adds.count("attn.proj") == 0);
  c.projections = true;
  // Multiplications per record: q 48 tokens·8·8; conv 2·6 outputs·8 channels·(8·2·2); kv 12 tokens·8·16;
  // scores B·H·N·keys·d.
  RecordingSink sink;
  emit_attention("attn", c, Convention::exact, sink);
  std::map<std::string, std::uint64_t> muls;
  for (const OpRecord& r : sink.records) muls[r.name] += r.counts.ops(OpKind::mul);
  CHECK(muls["attn.q"] == 48 * 64);
  CHECK(muls["attn.sr"] == 12 * 8 * 32);
  CHECK(muls["attn.kv"] == 12 * 8 * 16);
  CHECK(muls["attn.scores"] == 2 * 2 * 24 * 6 * 4);
}

TEST_CASE("SRA needs a token grid at least as large as the reduction") {
  AttentionConfig c{.variant = AttentionVariant::sra, .seq = 50, .head_dim = 4, .sr_ratio = 2};
  CHECK(token_grid_height(c) == 5);  // the most nearly square grid: 5×10
  CHECK(sra_keys(c) == 2 * 5);
  c.seq = 7;  // 1×7: smaller than the reduction
  CHECK_THROWS_WITH(attention(c, Convention::exact), Catch::Contains("smaller than the reduction ratio 2"));
  c.seq = 50, c.grid_height = 5;
  CHECK_NOTHROW(attention(c, Convention::exact));
  c.sr_ratio = 6;
  CHECK_THROWS_WITH(attention(c, Convention::exact), Catch::Contains("smaller than the reduction ratio 6"));
  c.grid_height = 7;
  CHECK_THROWS_WITH(attention(c, Convention::exact), Catch::Contains("grid of height 7"));
}

TEST_CASE("LSA: softmax attention within windows of the zero-padded grid — one window is MSA") {
  AttentionConfig c = grid_layer(AttentionVariant::lsa, 3);
  c.projections = false;
  c.window = 2;
  CHECK(lsa_windows(c) == 6);  // 4×6 grid: 2×3 windows of 2×2 tokens
  RecordingSink sink;
  emit_attention("attn", c, Convention::exact, sink);
  std::map<std::string, std::uint64_t> muls;
  for (const OpRecord& r : sink.records) muls[r.name] += r.counts.ops(OpKind::mul);
  CHECK(muls["attn.scores"] == 2 * 3 * 6 * 4 * 4 * 4);  // B·H·windows·(4 queries × 4 keys)·d
  c.grid_height = 0, c.seq = 25, c.window = 2;          // 5×5 padded to 6×6: 9 windows
  CHECK(lsa_windows(c) == 9);

  AttentionConfig lsa{.variant = AttentionVariant::lsa, .batch = 2, .heads = 2, .seq = 49, .head_dim = 8, .window = 7};
  AttentionConfig msa = lsa;
  msa.variant = AttentionVariant::msa;
  for (Convention convention : {Convention::paper, Convention::exact})
    CHECK(attention(lsa, convention) == attention(msa, convention));
  lsa.seq = 50, lsa.grid_height = 3;
  CHECK_THROWS_WITH(attention(lsa, Convention::exact), Catch::Contains("not a grid of height 3"));
}

TEST_CASE("LSA over a padded grid: the q/k/v projection over the padded tokens, the output projection as the model") {
  // an 8×8 grid in windows of 7: padded to 14×14, 4 windows of 49 tokens; width 16 (2 heads of 8), batch 2
  AttentionConfig c{.variant = AttentionVariant::lsa, .batch = 2, .heads = 2, .seq = 64, .head_dim = 8, .window = 7};
  for (const bool swin : {false, true}) {
    INFO((swin ? "Swin: the window attention holds the output projection" : "Twins: the cropped tokens projected"));
    c.lsa_padded_proj = swin;
    RecordingSink sink;
    emit_attention("attn", c, Convention::exact, sink);
    std::map<std::string, std::uint64_t> muls;
    for (const OpRecord& r : sink.records) muls[r.name] += r.counts.ops(OpKind::mul);
    CHECK(muls["attn.qkv"] == 2 * 196 * 16 * 48);  // timm pads before qkv (both models)
    CHECK(muls["attn.proj"] == 2 * (swin ? 196 : 64) * 16 * 16);
  }
}
