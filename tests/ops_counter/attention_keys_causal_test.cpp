// Attention with keys apart from the queries (Nk ≠ N, a decode step) and causal attention: hand-computed MSA
// counts of the attended pairs only (the lower triangle), the variants' work over the keys from Nk, and the
// variants that cannot serve such a block refused with the reason.
#include <catch2/catch.hpp>

#include "record_helpers.hpp"

using namespace ecosim;

namespace {

OpCounts attention(const AttentionConfig& c, Convention convention) {
  OpCounter counter;
  emit_attention("attn", c, convention, counter);
  return counter.total();
}

std::string error_of(const AttentionConfig& c) {
  try {
    c.validate();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("causal MSA by hand: only the lower triangle is scored (H=2, N=4, C=3)") {
  const AttentionConfig c{
      .variant = AttentionVariant::msa, .heads = 2, .seq = 4, .head_dim = 3, .projections = false, .causal = true};
  // rows see 1, 2, 3, 4 keys: 10 pairs per head, 20 in all
  CHECK(attended_pairs(4, 4, true) == 10);
  const OpCounts e = attention(c, Convention::exact);
  // QKᵀ: 20·3 muls, 20·2 adds; scale: 20 muls; softmax over rows of L = 1..4 (L muls, 2L−1 adds, L−1 cmp,
  // L exp, 1 div), twice: 20 muls, 2·(2·10 − 4) adds, 2·6 cmp, 20 exp, 8 div; AV: 20·3 muls, 2·(10 − 4)·3 adds
  CHECK(e.ops(OpKind::mul) == 60 + 20 + 20 + 60);
  CHECK(e.ops(OpKind::add) == 40 + 32 + 36);
  CHECK(e.ops(OpKind::cmp) == 12);
  CHECK(e.ops(OpKind::exp) == 20);
  CHECK(e.ops(OpKind::div) == 8);
  // paper (DESIGN §3 over the attended pairs): 2·pairs·C MACs, one scale per pair
  const OpCounts p = attention(c, Convention::paper);
  CHECK(p.ops(OpKind::mul) == 2 * 20 * 3 + 20);
  CHECK(p.ops(OpKind::add) == 2 * 20 * 3);
  // the records keep the 4×4 rectangle, marked causal, with the bytes of the attended scores
  test::RecordingSink sink;
  emit_attention("attn", c, Convention::exact, sink);
  REQUIRE(sink.records.size() == 4);
  for (const OpRecord& r : sink.records) CHECK(r.params.at(std::string(ops::kCausalParam)) == 1);
  CHECK(sink.records[0].m == 4);
  CHECK(sink.records[0].n == 4);
  CHECK(sink.records[0].counts.written_bytes() == 20 * 4);            // the fp32 scores attended
  CHECK(sink.records[0].counts.read_bytes() == 2 * (4 + 4) * 3 * 4);  // all of Q and K
}

TEST_CASE("causal MSA of a decode block: query i of N at position Nk − N + i sees Nk − N + i + 1 keys") {
  // 2 queries over 5 keys: 4 + 5 pairs; 1 query over 32768 keys: all of them
  CHECK(attended_pairs(2, 5, true) == 9);
  CHECK(attended_pairs(1, 32768, true) == 32768);
  CHECK(attended_pairs(3, 7, false) == 21);
  for (std::uint64_t n : {1, 2, 7, 1024})  // N(N+1)/2 for a square block
    CHECK(attended_pairs(n, n, true) == n * (n + 1) / 2);
  AttentionConfig c{.variant = AttentionVariant::msa,
                    .heads = 3,
                    .seq = 2,
                    .head_dim = 4,
                    .projections = false,
                    .keys = 5,
                    .causal = true};
  const OpCounts p = attention(c, Convention::paper);
  CHECK(p.ops(OpKind::mul) == 3 * (2 * 9 * 4 + 9));
  c.keys = 1;  // fewer keys than causal queries: no position for the queries
  CHECK_THAT(error_of(c), Catch::Contains("at least as many keys"));
}

TEST_CASE("keys apart from the queries: MSA, Linformer and Performer count the keys' work from Nk") {
  // 1 query over 4096 keys, 2 heads of width 8
  const AttentionConfig decode{
      .variant = AttentionVariant::msa, .heads = 2, .seq = 1, .head_dim = 8, .projections = false, .keys = 4096};
  const std::uint64_t pairs = 2 * 4096;
  CHECK(attention(decode, Convention::paper).ops(OpKind::mul) == 2 * pairs * 8 + pairs);
  AttentionConfig linformer = decode;
  linformer.variant = AttentionVariant::linformer;
  linformer.proj_k = 16;
  // E·K and E·V project the 4096 keys: 2·(2 heads · 8 · 16 · 4096) MACs; then 1 query over 16 rows
  CHECK(attention(linformer, Convention::paper).ops(OpKind::mul) ==
        2 * (2 * 8 * 16 * 4096) + 2 * (2 * 16 * 8) + 2 * 16);
  AttentionConfig performer = decode;
  performer.variant = AttentionVariant::performer;
  performer.features = 32;
  // paper: q and k features (1 and 4096 tokens × 32 × 8), kv over the 4096 keys, numerator and denominator of 1 query
  CHECK(attention(performer, Convention::paper).ops(OpKind::mul) ==
        2 * (1 * 32 * 8 + 4096 * 32 * 8 + 4096 * 32 * 8 + 1 * 32 * 8 + 1 * 32));
  // with projections: q from the query, k and v from the 4096 key tokens
  AttentionConfig projected = decode;
  projected.projections = true;
  const std::uint64_t width = 16;
  CHECK(attention(projected, Convention::paper).ops(OpKind::mul) -
            attention(decode, Convention::paper).ops(OpKind::mul) ==
        1 * width * width + 4096 * width * 2 * width + 1 * width * width);
}

TEST_CASE("a variant that cannot serve the block is refused with the reason") {
  AttentionConfig c{.variant = AttentionVariant::ecoformer, .heads = 2, .seq = 1, .head_dim = 8, .keys = 4096};
  // the hashed family shares one token set for queries and keys: refused for Nk ≠ N, never "support … 1..1"
  CHECK_THAT(error_of(c), Catch::Contains("ecoformer needs the queries and keys to be one token set") &&
                              Catch::Contains("1 queries over 4096 keys") && !Catch::Contains("support"));
  for (AttentionVariant v : {AttentionVariant::reformer, AttentionVariant::lsh_ecoformer, AttentionVariant::lsa}) {
    c.variant = v;
    CHECK_THAT(error_of(c), Catch::Contains("one token set"));
  }
  c = {.variant = AttentionVariant::ecoformer, .heads = 2, .seq = 64, .head_dim = 8, .causal = true};
  for (const VariantInfo& row : variant_registry()) {
    c.variant = row.variant;
    INFO(row.name);
    if (row.causal_form)
      CHECK(error_of(c) == "no error");
    else
      CHECK_THAT(error_of(c), Catch::Contains(std::string(row.name) + " has no causal form") &&
                                  Catch::Contains("bidirectional") && Catch::Contains("msa"));
  }
  // support is checked against the keys
  c = {.variant = AttentionVariant::ecoformer, .heads = 2, .seq = 16, .head_dim = 8, .support = 17};
  CHECK_THAT(error_of(c), Catch::Contains("support samples = 17 is outside 1..16"));
}
