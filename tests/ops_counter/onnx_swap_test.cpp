// Swapping an imported attention block for a variant (issue 18): the keys' length kept apart from the queries'
// (a decode step of 1 query over 32,768 keys), causal blocks found from their constant masks (an Add, GPT-2's
// Where, masked_fill's Where), a variant without a causal form refused naming causality, and MSA keeping the
// lower triangle. Fixtures: scripts/make_onnx_fixtures.py; counts by hand from ops_counter/README.md.
#include <catch2/catch.hpp>

#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "onnx_count_helpers.hpp"
#include "onnx_or_skip.hpp"

using namespace ecosim;
using ecosim::test::layer_total;
using ecosim::test::onnx_total;
using ecosim::test::swap_to;
using ecosim::test::swapped_block;

namespace {

OnnxModel fixture(const std::string& name) {
  return import_onnx(std::string(ECOSIM_ONNX_OPS_DIR) + "/" + name + ".onnx");
}

std::string swap_error(const OnnxModel& m, const AttentionConfig& swap) {
  try {
    onnx_layers(m, swap);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("ONNX decode step: a swap keeps the 32,768 keys apart from the 1 query", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("decode_step");
  REQUIRE(m.attention.size() == 1);
  const SoftmaxAttention& found = m.attention[0].shape;
  CHECK(found.queries == 1);
  CHECK(found.keys == 32768);
  CHECK(found.heads == 12);
  CHECK(found.head_dim == 64);
  CHECK_FALSE(found.causal);
  // MSA at the block's shapes is the export's own attention, in both conventions
  for (Convention convention : {Convention::exact, Convention::paper})
    for (OpKind k : kAllOpKinds) {
      INFO(name(convention) << " " << name(k));
      CHECK(onnx_total(m, convention, swap_to(AttentionVariant::msa)).ops(k) == onnx_total(m, convention).ops(k));
    }
  const std::uint64_t heads = 12, keys = 32768, d = 64;
  CHECK(onnx_total(m, Convention::paper).ops(OpKind::mul) == 2 * heads * keys * d + heads * keys);
  // Linformer projects the 32,768 keys (and values) to k = 256 rows: 2·H·d·k·Nk MACs, ≈ 12.9 G muls
  AttentionConfig linformer = swap_to(AttentionVariant::linformer);
  const std::uint64_t k = linformer.proj_k;
  CHECK(onnx_total(m, Convention::paper, linformer).ops(OpKind::mul) ==
        2 * heads * d * k * keys + 2 * heads * k * d + heads * k);
  // Performer's key features and kv run over the 32,768 keys
  AttentionConfig performer = swap_to(AttentionVariant::performer);
  const std::uint64_t f = performer.features;
  CHECK(onnx_total(m, Convention::paper, performer).ops(OpKind::mul) ==
        heads * (f * d + keys * f * d + keys * f * d + f * d + f));
  // EcoFormer hashes queries and keys as one token set: refused with that reason, not "support … 1..1"
  const std::string refused = swap_error(m, swap_to(AttentionVariant::ecoformer));
  CHECK_THAT(refused, Catch::Contains("scores..context") && Catch::Contains("1 queries over 32768 keys") &&
                          Catch::Contains("one token set") && !Catch::Contains("support"));
}

TEST_CASE("ONNX causal blocks: the constant mask found as causal in its three exported forms", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  for (const char* name : {"causal_add", "causal_where", "causal_fill"}) {
    INFO(name);
    const OnnxModel m = fixture(name);
    REQUIRE(m.attention.size() == 1);
    CHECK(m.attention[0].shape.causal);
    CHECK(m.attention[0].shape.masked);
    CHECK(m.attention[0].nodes == std::vector<std::string>{"scores", "scale", "mask", "softmax", "context"});
  }
  CHECK_FALSE(fixture("attention_mask").attention[0].shape.causal);  // a mask given as an input: unknown values
  // The export computes every score and masks them: 2 heads × 6 × 6 scores, one mask add each (exact).
  const OpCounts native = onnx_total(fixture("causal_add"), Convention::paper);
  CHECK(native.ops(OpKind::mul) == 2 * 72 * 4 + 72);
  CHECK(onnx_total(fixture("causal_add"), Convention::exact).ops(OpKind::add) ==
        72 * 3 + 72 + 12 * 11 + 2 * 6 * 4 * 5);  // scores, mask, softmax rows of 6, context
  // the Where form selects (no arithmetic) instead of adding
  CHECK(onnx_total(fixture("causal_where"), Convention::exact).ops(OpKind::add) == 72 * 3 + 12 * 11 + 2 * 6 * 4 * 5);
}

TEST_CASE("ONNX decode step growing its KV cache: causal, so a recurrent variant folds the one new token", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // (fixture, K/V heads): 2 heads, and 4 query heads over 2 K/V heads repeated after the cache update (repeat_kv)
  for (const auto& [file, kv_heads] :
       std::vector<std::pair<std::string, std::uint64_t>>{{"decode_cache", 2}, {"decode_cache_gqa", 2}}) {
    INFO(file);
    const OnnxModel m = fixture(file);
    REQUIRE(m.attention.size() == 1);
    const SoftmaxAttention& found = m.attention[0].shape;
    CHECK(found.queries == 1);
    CHECK(found.keys == 8);
    CHECK(found.kv_heads == kv_heads);
    CHECK(found.causal);  // the query is the newest of the keys: every key is attended, as without a mask
    for (OpKind k : kAllOpKinds) {
      INFO(name(k));
      CHECK(onnx_total(m, Convention::exact, swap_to(AttentionVariant::msa)).ops(k) ==
            onnx_total(m, Convention::exact).ops(k));
    }
    // Performer and EcoFormer fold the step's token onto the state the 7 cached keys left, rather than rebuilding
    // it over every key (a cross-attention's cost: Performer's features and kv over all 8 keys each step)
    for (AttentionVariant v : {AttentionVariant::performer, AttentionVariant::ecoformer}) {
      INFO(name(v));
      const std::vector<Layer> swapped = onnx_layers(m, swap_to(v));
      const auto* a = std::get_if<AttentionConfig>(&swapped.back().op);
      REQUIRE(a);
      CHECK((a->causal && a->seq == 1 && a->key_count() == 8 && folded_keys(*a) == 1 && holds_state(*a)));
    }
    CHECK_THAT(swap_error(m, swap_to(AttentionVariant::linformer)), Catch::Contains("linformer has no causal form"));
  }
  // one query over two memories concatenated (both inputs: no key of the step's own) is no decode step
  const OnnxModel pooled = fixture("concat_memories");
  REQUIRE(pooled.attention.size() == 1);
  CHECK(pooled.attention[0].shape.keys == 8);
  CHECK_FALSE(pooled.attention[0].shape.causal);
}

TEST_CASE(
    "ONNX causal blocks: MSA keeps the lower triangle, the recurrent variants their causal form, others are refused",
    "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // (fixture, queries, keys, attended pairs per head): 6 over 6 sees 1..6 keys; 3 over 7 sees 5, 6, 7; a causal
  // mask the graph sums with a padding input's term, or fills where that input says (Hugging Face's), still causal
  const std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t, std::uint64_t>> blocks = {
      {"causal_add", 6, 6, 21},
      {"causal_where", 6, 6, 21},
      {"causal_fill", 3, 7, 18},
      {"causal_padded", 6, 6, 21},
      {"causal_padded_fill", 6, 6, 21}};
  for (const auto& [file, queries, keys, pairs_per_head] : blocks) {
    INFO(file);
    const OnnxModel m = fixture(file);
    const std::uint64_t pairs = 2 * pairs_per_head, d = 4;
    const std::vector<Layer> swapped = onnx_layers(m, swap_to(AttentionVariant::msa));
    const Layer& block = swapped_block(swapped);  // (a padded mask's arithmetic apart)
    const auto& a = std::get<AttentionConfig>(block.op);
    CHECK(a.causal);
    CHECK(a.seq == queries);
    CHECK(a.key_count() == keys);
    const OpCounts paper = layer_total(block, Convention::paper);
    CHECK(paper.ops(OpKind::mul) == 2 * pairs * d + pairs);
    CHECK(paper.ops(OpKind::add) == 2 * pairs * d);
    // exact: scores pairs·(d−1) adds, softmax 2L−1 per row, context (pairs − rows)·d
    const std::uint64_t rows = 2 * queries;
    CHECK(layer_total(block, Convention::exact).ops(OpKind::add) ==
          pairs * (d - 1) + (2 * pairs - rows) + (pairs - rows) * d);
    CHECK_THAT(swap_error(m, swap_to(AttentionVariant::linformer)),
               Catch::Contains("scores..context") && Catch::Contains("linformer has no causal form"));
    // Reformer's causal form: the within-bucket triangle (queries = keys), or decode steps over the earlier keys
    CHECK(swap_error(m, swap_to(AttentionVariant::reformer)) == "no error");
    // the recurrent variants take the block in their causal form: the block's queries folded onto the state of the
    // keys before them
    for (AttentionVariant v : {AttentionVariant::ecoformer, AttentionVariant::performer}) {
      INFO(name(v));
      const auto& r = std::get<AttentionConfig>(swapped_block(onnx_layers(m, swap_to(v))).op);
      CHECK((r.causal && r.variant == v && folded_keys(r) == queries && holds_state(r) == (keys > queries)));
    }
  }
}

TEST_CASE("ONNX look-alikes of a padded causal mask: a fill that unmasks is not causal, a term per query is a bias",
          "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // a fill that unmasks, and a constant band added to the causal mask (a window: the sum's values tell)
  for (const char* file : {"causal_zero_fill", "causal_plus_band"}) {
    INFO(file);
    const OnnxModel m = fixture(file);
    REQUIRE(m.attention.size() == 1);
    CHECK_FALSE(m.attention[0].shape.causal);
    CHECK(swap_error(m, swap_to(AttentionVariant::linformer)) == "no error");  // bidirectional, as it computes
  }
  // the causal constant plus a term added to the mask (a bias merged into it, as T5's decoder does): causal, the
  // term a bias the swap leaves out (here one value a query row, which no softmax row even sees)
  const OnnxModel term = fixture("causal_query_term");
  REQUIRE(term.attention.size() == 1);
  CHECK(term.attention[0].shape.causal);
  CHECK(term.attention[0].shape.biased);
  CHECK_THAT(swap_error(term, swap_to(AttentionVariant::linformer)), Catch::Contains("no causal form"));
}

TEST_CASE("ONNX a block whose mask is stored externally: no swap, since its causality cannot be told", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("causal_stripped");  // causal_add with its mask stripped
  REQUIRE(m.attention.size() == 1);
  CHECK(m.attention[0].shape.mask_unknown);
  CHECK_FALSE(m.attention[0].shape.causal);
  CHECK(onnx_total(m, Convention::paper).ops(OpKind::mul) ==
        onnx_total(fixture("causal_add"), Convention::paper).ops(OpKind::mul));
  for (AttentionVariant v : {AttentionVariant::msa, AttentionVariant::performer})
    CHECK_THAT(swap_error(m, swap_to(v)), Catch::Contains("scores..context") && Catch::Contains("external data") &&
                                              Catch::Contains("causal cannot be told"));
  CHECK_FALSE(fixture("causal_add").attention[0].shape.mask_unknown);
}

TEST_CASE("ONNX a swap to a grid variant needs a two-dimensional grid: 197 tokens form none", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // A ViT's 196 patches and its class token: the most nearly square grid of 197 (a prime) is 1 × 197.
  const OnnxModel deit = import_onnx(std::string(ECOSIM_ONNX_MODELS_DIR) + "/deit_tiny.onnx");
  for (AttentionVariant v : {AttentionVariant::lsa, AttentionVariant::sra})
    CHECK_THAT(swap_error(deit, swap_to(v)), Catch::Contains("cannot become " + std::string(name(v))) &&
                                                 Catch::Contains("197 tokens form no two-dimensional grid"));
}
