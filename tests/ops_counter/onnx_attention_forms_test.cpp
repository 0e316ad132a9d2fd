// Issue 19: attention in the forms real exporters write is found, each block with its shapes asserted by hand, and
// an attention the importer does not recognise is never a silent zero: its products still count, and it is
// reported (a swap refuses it).
#include <catch2/catch.hpp>

#include <algorithm>

#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "onnx_count_helpers.hpp"
#include "onnx_or_skip.hpp"

using namespace ecosim;
using ecosim::test::onnx_total;
using ecosim::test::swap_to;

namespace {

const std::string kModels = ECOSIM_ONNX_MODELS_DIR;
const std::string kOps = ECOSIM_ONNX_OPS_DIR;

std::string swap_error(const OnnxModel& m, AttentionVariant variant) {
  try {
    (void)onnx_layers(m, swap_to(variant));
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

struct Block {
  std::uint64_t batch, heads, kv_heads, queries, keys, head_dim;
  bool causal, masked, biased;
};

/// Every attention softmax of `m` is in a found block, and every block has the shapes of `expected`.
void check_blocks(const OnnxModel& m, std::size_t count, const Block& expected) {
  CHECK(m.unmatched_attention.empty());
  REQUIRE(m.attention.size() == count);
  for (const FoundAttention& found : m.attention) {
    const SoftmaxAttention& a = found.shape;
    CHECK(a.batch == expected.batch);
    CHECK(a.heads == expected.heads);
    CHECK(a.kv_heads == expected.kv_heads);
    CHECK(a.queries == expected.queries);
    CHECK(a.keys == expected.keys);
    CHECK(a.head_dim == expected.head_dim);
    CHECK(a.causal == expected.causal);
    CHECK(a.masked == expected.masked);
    CHECK(a.biased == expected.biased);
  }
}

}  // namespace

TEST_CASE("a scale computed from the shape at run time, (C // heads) ** -0.5 as a Pow, is found", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = import_onnx(kModels + "/runtime_scale.onnx");
  // 2 blocks, 16 tokens, width 64, 4 heads of 16
  check_blocks(m, 2, {1, 4, 4, 16, 16, 16, false, false, false});
  for (const FoundAttention& found : m.attention) CHECK(found.shape.scaled);
  // paper: qkv and proj 16·64·(192 + 64) MACs a block; scores and context 2·4·16²·16 MACs, the scale 4·16² muls
  const std::uint64_t linear = 16 * 64 * (192 + 64), products = 2 * 4 * 16 * 16 * 16, scale = 4 * 16 * 16;
  const OpCounts paper = onnx_total(m, Convention::paper);
  CHECK(paper.ops(OpKind::mul) == 2 * (linear + products + scale));
  CHECK(paper.ops(OpKind::add) == 2 * (linear + products));
}

TEST_CASE("PyTorch 2's decomposed scaled_dot_product_attention (√scale on Q and Kᵀ, in-graph causal mask)", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = import_onnx(kOps + "/sdpa_causal.onnx");
  check_blocks(m, 1, {1, 2, 2, 6, 6, 4, true, true, false});
  // √scale multiplies Q and Kᵀ (2·6·4 elements each) before the scores, as the graph does it; then the scores and
  // context products of every score, and the softmax's normalising mul per score (no scale stage of its own)
  CHECK(onnx_total(m, Convention::exact).ops(OpKind::mul) == 2 * (2 * 6 * 4) + 2 * (2 * 6 * 6 * 4) + 2 * 6 * 6);
  // swapped, it is the same causal block as the hand-made causal_add (Q, K, V [1,2,6,4], a constant causal mask)
  const OnnxModel reference = import_onnx(kOps + "/causal_add.onnx");
  const AttentionConfig msa = swap_to(AttentionVariant::msa);
  // in both conventions: the √scale Muls on Q and Kᵀ go with the block (MSA scales its scores itself)
  REQUIRE(m.attention.size() == 1);
  CHECK(m.attention[0].operand_scale_layers.size() == 2);
  for (Convention convention : {Convention::paper, Convention::exact}) {
    INFO(name(convention));
    for (OpKind k : kAllOpKinds)
      CHECK(onnx_total(m, convention, msa).ops(k) == onnx_total(reference, convention, msa).ops(k));
  }
}

TEST_CASE("the same over 300 tokens: a mask of 90,000 elements, too large to fold, is found causal as a band",
          "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = import_onnx(kOps + "/sdpa_causal_long.onnx");
  check_blocks(m, 1, {1, 2, 2, 300, 300, 4, true, true, false});
  // swapped to MSA: the lower triangle, 300·301/2 pairs a head (paper: scores and context 2·pairs·d, the softmax's
  // normalising mul per pair)
  const std::uint64_t pairs = 2 * (300 * 301 / 2);
  CHECK(onnx_total(m, Convention::paper, swap_to(AttentionVariant::msa)).ops(OpKind::mul) == 2 * pairs * 4 + pairs);
}

TEST_CASE("nn.MultiheadAttention's q / √E goes with its block when the block is swapped, and is counted with it",
          "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = import_onnx(kModels + "/vit_mha.onnx");
  REQUIRE(m.attention.size() == 2);
  for (const FoundAttention& a : m.attention) CHECK(a.operand_scale_layers.size() == 1);  // q only
  // exact: swapped to MSA, each block scales its 2 heads' 17 × 17 scores (muls) instead of dividing q's 17 × 64
  // elements; every other count unchanged
  const OpCounts native = onnx_total(m, Convention::exact),
                 swapped = onnx_total(m, Convention::exact, swap_to(AttentionVariant::msa));
  CHECK(swapped.ops(OpKind::mul) == native.ops(OpKind::mul) + 2 * (2 * 17 * 17));
  CHECK(swapped.ops(OpKind::div) + 2 * (17 * 64) == native.ops(OpKind::div));
  for (OpKind k : {OpKind::add, OpKind::cmp, OpKind::exp}) CHECK(swapped.ops(k) == native.ops(k));
  // the swapped block reads what the dropped division read (the training step's saved tensors alias by it)
  const std::vector<Layer> layers = onnx_layers(m, swap_to(AttentionVariant::msa));
  for (const FoundAttention& a : m.attention) {
    const auto named = [&](const std::string& n) {
      return std::find_if(m.layers.begin(), m.layers.end(), [&](const Layer& l) { return l.name == n; });
    };
    const auto scale = named(a.operand_scale_layers[0]);
    REQUIRE(scale != m.layers.end());
    const std::string scale_read = !scale->input.empty() ? scale->input : std::prev(scale)->name;
    const auto block = std::find_if(layers.begin(), layers.end(), [&](const Layer& l) {
      return l.name == a.nodes.front() + ".." + a.nodes.back() + "[msa]";
    });
    REQUIRE(block != layers.end());
    CHECK((!block->input.empty() ? block->input : std::prev(block)->name) == scale_read);
    CHECK(std::none_of(layers.begin(), layers.end(), [&](const Layer& l) { return l.name == scale->name; }));
    CHECK(is_attention(*scale));  // counted with its block under --scope attention
  }
  // so the layers outside the blocks (all --scope attention leaves out) are the same, swapped or not
  const auto outside = [](const std::vector<Layer>& all) {
    std::vector<std::string> names;
    for (const Layer& l : all)
      if (!is_attention(l)) names.push_back(l.name);
    return names;
  };
  CHECK(outside(m.layers) == outside(layers));
}

TEST_CASE("attention in stock PyTorch exports: every block found with its shapes", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // nn.MultiheadAttention (rank-3 scores over bsz·heads): ViT, 17 tokens, 2 heads of 32
  check_blocks(import_onnx(kModels + "/vit_mha.onnx"), 2, {1, 2, 2, 17, 17, 32, false, false, false});
  // nn.TransformerEncoder, batch 2 × 16 tokens, 4 heads of 16, a key padding mask
  const OnnxModel encoder = import_onnx(kModels + "/transformer_encoder.onnx");
  check_blocks(encoder, 2, {2, 4, 4, 16, 16, 16, false, true, false});
  CHECK(encoder.batch == 2);  // its first input's leading dimension
  // the same with a causal mask beside the padding one: torch merges them (a float mask as Where(padding, −inf,
  // causal) times baddbmm's beta 1, bool masks as Where(causal | padding, −inf, 0)) — both read as causal, not as
  // the "non-causal mask" every swap then priced bidirectionally, and the bool masks' Or is a known op
  for (const char* form : {"float", "bool"}) {
    INFO(form);
    const OnnxModel causal = import_onnx(kModels + "/transformer_encoder_causal_" + form + ".onnx");
    check_blocks(causal, 2, {2, 4, 4, 16, 16, 16, true, true, false});
    CHECK(causal.unknown_ops.empty());
  }
  // GPT-2: the causal mask sliced from a buffer
  check_blocks(import_onnx(kModels + "/gpt_tiny.onnx"), 2, {1, 4, 4, 16, 16, 16, true, true, false});
  // T5's decoder: its relative-position bias (a table gathered by bucket) added to the causal mask before the
  // scores — causal and biased (read as a non-causal mask, every swap priced it bidirectionally)
  check_blocks(import_onnx(kModels + "/t5_block.onnx"), 1, {1, 4, 4, 16, 16, 16, true, true, true});
  // Llama: 4 query heads over 2 K/V heads expanded, torch.triu's causal mask, a Cast before the softmax
  check_blocks(import_onnx(kModels + "/llama_block.onnx"), 1, {1, 4, 2, 16, 16, 16, true, true, false});
  // Swin: 4 windows of 4×4 tokens, 2 heads of 16, the relative-position bias and the shifted windows' mask added
  check_blocks(import_onnx(kModels + "/swin_block.onnx"), 1, {4, 2, 2, 16, 16, 16, false, true, true});
}

TEST_CASE("swapping the Llama and Swin blocks: run, or refused with the reason", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel llama = import_onnx(kModels + "/llama_block.onnx");
  CHECK_THAT(swap_error(llama, AttentionVariant::linformer), Catch::Contains("linformer has no causal form"));
  CHECK(swap_error(llama, AttentionVariant::ecoformer) == "no error");  // prefix sums: a causal form (issue 21)
  // swapped to Performer, its state is one per K/V head (2 of them, each shared by 2 query heads): S, z and the key
  // stabiliser, fp32
  std::size_t swapped = 0;
  for (const Layer& layer : onnx_layers(llama, swap_to(AttentionVariant::performer)))
    if (const auto* a = std::get_if<AttentionConfig>(&layer.op)) {
      ++swapped;
      CHECK(a->kv_heads == 2);
      CHECK(recurrent_state_bytes(*a) == 2 * (a->features * 16 + a->features + 1) * 4);
    }
  CHECK(swapped == 1);
  // MSA has a causal form: the block keeps its lower triangle, 4 heads · (16·17/2 pairs) · 16 fewer than the export's
  // every-score products, scores and context alike
  const std::uint64_t hidden_pairs = 4 * (16 * 16 - 16 * 17 / 2);
  CHECK(onnx_total(llama, Convention::paper).ops(OpKind::add) -
            onnx_total(llama, Convention::paper, swap_to(AttentionVariant::msa)).ops(OpKind::add) ==
        2 * hidden_pairs * 16);
  // Swin's window holds 16 tokens: EcoFormer's default 25 anchors cannot be drawn from it (the swap with fewer:
  // onnx_models_test.cpp; a mask stored as external data: onnx_swap_test.cpp)
  const OnnxModel swin = import_onnx(kModels + "/swin_block.onnx");
  CHECK_THAT(swap_error(swin, AttentionVariant::ecoformer),
             Catch::Contains("16 queries over 16 keys") && Catch::Contains("support samples = 25 is outside 1..16"));
}

TEST_CASE("an attention the importer does not recognise still counts its products and is reported", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // the scores weighted by an input tensor: no scale the pattern knows
  const OnnxModel m = import_onnx(kOps + "/attention_unrecognised.onnx");
  CHECK(m.attention.empty());
  CHECK(m.unmatched_attention == std::vector<std::string>{"softmax"});
  CHECK_THAT(unmatched_attention_warning(m), Catch::Contains("'softmax'"));
  // paper: the scores and context products, 2·2·6²·4 MACs (the weighting and softmax elementwise: 0)
  CHECK(onnx_total(m, Convention::paper).ops(OpKind::mul) == 2 * 2 * 6 * 6 * 4);
  CHECK_THAT(swap_error(m, AttentionVariant::msa), Catch::Contains("cannot swap") && Catch::Contains("'softmax'"));
}

TEST_CASE("an attention whose softmax is written out is reported, and a swap refused", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // exp / its sum, or log_softmax's exp: a swap that took the model's Softmax blocks alone left these out silently
  for (const char* fixture : {"attention_written_softmax", "attention_log_softmax"}) {
    INFO(fixture);
    const OnnxModel m = import_onnx(kOps + "/" + fixture + ".onnx");
    CHECK(m.attention.empty());
    CHECK(m.unmatched_attention == std::vector<std::string>{"exp"});
    CHECK_THAT(swap_error(m, AttentionVariant::performer), Catch::Contains("cannot swap") && Catch::Contains("'exp'"));
  }
}

TEST_CASE("opset 23's Attention node is a found block: 4-D and 3-D inputs, grouped K/V, a KV cache, masks", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // is_causal over Q, K, V [2,4,16,8]
  const OnnxModel causal = import_onnx(kOps + "/attention23_causal.onnx");
  check_blocks(causal, 1, {2, 4, 4, 16, 16, 8, true, true, false});
  // paper: scores and context 2·(2·4·16²·8) MACs, the scale one mul per score (2·4·16²)
  CHECK(onnx_total(causal, Convention::paper).ops(OpKind::mul) == 2 * 2 * 4 * 256 * 8 + 2 * 4 * 256);
  // rank 3: Q [1,10,64] split into 8 heads of 8, K and V [1,10,16] into 2 K/V heads
  check_blocks(import_onnx(kOps + "/attention23_gqa_3d.onnx"), 1, {1, 8, 2, 10, 10, 8, false, false, false});
  // a decode step: 1 query over the 31 cached keys and its own; a bool mask input selects, is not causal
  const OnnxModel cache = import_onnx(kOps + "/attention23_cache.onnx");
  check_blocks(cache, 1, {1, 4, 4, 1, 32, 8, false, true, false});
  CHECK(cache.attention[0].shape.mask_select);
  // a constant additive mask [1,1,6,6]: causal from its values
  check_blocks(import_onnx(kOps + "/attention23_mask.onnx"), 1, {1, 2, 2, 6, 6, 4, true, true, false});
  // swapped like any found block: the causal one to Performer's causal form, MSA keeping the lower triangle
  CHECK(swap_error(causal, AttentionVariant::performer) == "no error");
  CHECK_THAT(swap_error(causal, AttentionVariant::linformer), Catch::Contains("linformer has no causal form"));
  const std::uint64_t hidden_pairs = 2 * 4 * (16 * 16 - 16 * 17 / 2);
  CHECK(onnx_total(causal, Convention::paper).ops(OpKind::add) -
            onnx_total(causal, Convention::paper, swap_to(AttentionVariant::msa)).ops(OpKind::add) ==
        2 * hidden_pairs * 8);
  // refused, with the reason: softcap (a tanh per score), is_causal over a cache (ONNX's top-left triangle)
  const auto error_of = [](const std::string& file) {
    try {
      (void)import_onnx(kOps + "/hostile/" + file);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("attention23_softcap.onnx"), Catch::Contains("softcap") && Catch::Contains("not counted"));
  CHECK_THAT(error_of("attention23_causal_cache.onnx"),
             Catch::Contains("is_causal with 1 queries over 6 keys") && Catch::Contains("top-left"));
}
