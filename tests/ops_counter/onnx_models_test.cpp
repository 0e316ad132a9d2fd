// The models exported from PyTorch by scripts/export_models.py: PVTv2-B0 counts exactly as the zoo's
// pvt_v2_b0 with its own (SRA) attention in both conventions, every attention block is found with its shapes, and
// the stock TransformerEncoder's training step leaves its mask's arithmetic unrecorded.
#include <catch2/catch.hpp>

#include <set>

#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/training_step.hpp"
#include "onnx_or_skip.hpp"

using namespace ecosim;

namespace {

const std::string kModels = ECOSIM_ONNX_MODELS_DIR;

OpCounts total(const std::vector<Layer>& layers, Convention convention) {
  OpCounter counter;
  for (const Layer& l : layers) emit(l, convention, counter);
  return counter.total();
}

/// The operations of `c` (bytes left out: the export's reshapes and transposes move data the zoo does not list).
std::vector<std::uint64_t> operations(const OpCounts& c) {
  std::vector<std::uint64_t> ops;
  for (OpKind k : kAllOpKinds)
    for (std::size_t t = 0; t < kDTypeCount; ++t) ops.push_back(c.ops(k, static_cast<DType>(t)));
  return ops;
}

/// The export of `file` counts the operations of the zoo's `zoo_model` in both conventions.
void check_counts_as_zoo(const std::string& file, const std::string& zoo_model, bool native) {
  const OnnxModel model = import_onnx(kModels + "/" + file);
  CHECK(model.unknown_ops.empty());
  ModelOptions options;
  options.native_attention = native;
  const std::vector<Layer> zoo = ModelZoo::builtin().build(zoo_model, options);
  for (Convention convention : {Convention::paper, Convention::exact}) {
    INFO(name(convention));
    const OpCounts imported = total(onnx_layers(model, std::nullopt), convention);
    CHECK(imported.ops(OpKind::mul) > 500'000'000);  // a real network: ~0.6 G MACs and more
    CHECK(operations(imported) == operations(total(zoo, convention)));
  }
}

}  // namespace

TEST_CASE("exported PVTv2-B0 counts exactly as the zoo's pvt_v2_b0 with native attention", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  check_counts_as_zoo("pvt_v2_b0.onnx", "pvt_v2_b0", true);
}

TEST_CASE("exported DeiT-Ti counts exactly as the zoo's deit_tiny", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  check_counts_as_zoo("deit_tiny.onnx", "deit_tiny", false);
}

TEST_CASE("attention blocks are found in every exported transformer", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  struct Expected {
    std::string file;
    std::size_t blocks;
    std::uint64_t heads, tokens, head_dim;
    bool masked;
  };
  for (const Expected& e :
       {Expected{"tiny_vit.onnx", 2, 2, 17, 32, false}, Expected{"bert_tiny.onnx", 2, 4, 16, 16, true},
        Expected{"deit_tiny.onnx", 12, 3, 197, 64, false}}) {
    INFO(e.file);
    const OnnxModel model = import_onnx(kModels + "/" + e.file);
    CHECK(model.unknown_ops.empty());
    REQUIRE(model.attention.size() == e.blocks);
    for (const FoundAttention& a : model.attention) {
      CHECK(a.shape.batch == 1);
      CHECK(a.shape.heads == e.heads);
      CHECK(a.shape.queries == e.tokens);
      CHECK(a.shape.keys == e.tokens);
      CHECK(a.shape.head_dim == e.head_dim);
      CHECK(a.shape.masked == e.masked);
      CHECK(a.nodes.front().find("MatMul") != std::string::npos);
      CHECK(a.nodes.back().find("MatMul") != std::string::npos);
    }
  }
  CHECK(import_onnx(kModels + "/small_cnn.onnx").attention.empty());
}

TEST_CASE("exported PVTv2-B0: eight attention blocks with spatially reduced keys", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel model = import_onnx(kModels + "/pvt_v2_b0.onnx");
  REQUIRE(model.attention.size() == 8);
  // stages: grid 56², 28², 14², 7²; sr 8, 4, 2, 1; heads 1, 2, 5, 8; head width 32
  const std::uint64_t queries[] = {3136, 784, 196, 49}, keys = 49, heads[] = {1, 2, 5, 8};
  for (std::size_t i = 0; i < 8; ++i) {
    const SoftmaxAttention& a = model.attention[i].shape;
    CHECK(a.batch == 1);
    CHECK(a.heads == heads[i / 2]);
    CHECK(a.queries == queries[i / 2]);
    CHECK(a.keys == keys);
    CHECK(a.head_dim == 32);
    CHECK(a.scaled);
    CHECK_FALSE(a.masked);
  }
}

namespace {

/// MACs of the Linear layers (tokens · in · out) and of the activation products (batched `@` and found attention
/// blocks: scores and context) of an imported model.
struct Macs {
  std::uint64_t linear = 0, products = 0;
};
Macs macs_of(const OnnxModel& model) {
  Macs m;
  for (const Layer& l : model.layers) {
    if (const auto* x = std::get_if<Linear>(&l.op)) m.linear += x->tokens * x->in * x->out;
    if (const auto* x = std::get_if<Matmul>(&l.op)) m.products += x->batch * x->m * x->n * x->k;
    if (const auto* x = std::get_if<SoftmaxAttention>(&l.op))
      m.products += 2 * x->batch * x->heads * x->queries * x->keys * x->head_dim;
  }
  return m;
}

}  // namespace

// Issue 19: stock PyTorch transformers, whose exports compute their shapes in the graph, import and count.
TEST_CASE("exported transformers with in-graph shape arithmetic import and count their MACs", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  struct Expected {
    std::string file;
    std::uint64_t linear, products;
  };
  // nn.MultiheadAttention ViT: 2 blocks × 17 tokens × (4·64² + 2·64·256) + head 64·10; attention 2 blocks ×
  // 2 heads × 2 · 17² · 32
  // TransformerEncoder: B·N·(4·d² + 2·d·d_ff) per layer, 2 layers, B = 2, N = 16, d = 64, d_ff = 128; attention
  // 2 layers × B × 4 heads × 2 · 16² · 16
  // GPT: 2 layers × 16 tokens × 12·64² + LM head 16·64·100; attention 2 × 4 heads × 2 · 16² · 16
  // Llama: 16 tokens × (wq 64·64 + wk, wv 64·32 + wo 64·64 + SwiGLU 3·64·172); attention 4 heads × 2 · 16² · 16,
  // and the rotary angles, torch.outer of 16 positions and 8 frequencies (an Einsum)
  // Swin: qkv and proj on the 8×8 padded map (64 tokens × (32·96 + 32·32)), the MLP on the 7×7 one (49 × 2·32·128);
  // attention 4 windows × 2 heads × 2 · 16² · 16
  for (const Expected& e : {
           Expected{"vit_mha.onnx", 2 * 17 * (4 * 64 * 64 + 2 * 64 * 256) + 64 * 10, 2 * 2 * 2 * 17 * 17 * 32},
           Expected{"transformer_encoder.onnx", 2 * 2 * 16 * (4 * 64 * 64 + 2 * 64 * 128),
                    2 * 2 * 4 * 2 * 16 * 16 * 16},
           Expected{"gpt_tiny.onnx", 2 * 16 * 12 * 64 * 64 + 16 * 64 * 100, 2 * 4 * 2 * 16 * 16 * 16},
           Expected{"llama_block.onnx", 16 * (2 * 64 * 64 + 2 * 64 * 32 + 3 * 64 * 172), 4 * 2 * 16 * 16 * 16 + 16 * 8},
           Expected{"swin_block.onnx", 64 * (32 * 96 + 32 * 32) + 49 * 2 * 32 * 128, 4 * 2 * 2 * 16 * 16 * 16},
       }) {
    INFO(e.file);
    const OnnxModel model = import_onnx(kModels + "/" + e.file);
    const Macs m = macs_of(model);
    CHECK(m.linear == e.linear);
    CHECK(m.products == e.products);
    // every counted tensor has a static shape: counting in both conventions goes through
    for (Convention convention : {Convention::paper, Convention::exact})
      CHECK(total(onnx_layers(model, std::nullopt), convention).ops(OpKind::mul) > 0);
  }
  // The rotary embedding's cos/sin export as Cos and Sin: ops ecosim does not count (its torch.outer, an Einsum,
  // counts as a GEMM).
  CHECK(import_onnx(kModels + "/llama_block.onnx").unknown_ops ==
        std::map<std::string, std::uint64_t>{{"Cos", 1}, {"Sin", 1}});
  // The shifted windows' mask, built by slice assignment (ScatterND) and masked_fill (Not), folds from shapes.
  CHECK(import_onnx(kModels + "/swin_block.onnx").unknown_ops.empty());
  for (const char* file : {"vit_mha.onnx", "transformer_encoder.onnx", "gpt_tiny.onnx"})
    CHECK(import_onnx(kModels + "/" + file).unknown_ops.empty());
}

// A training step records what autograd records: the layers working on the key padding mask only (the
// graph's second input: data) have no backward and save nothing — among them a Where, which ecosim cannot
// differentiate and which is therefore not refused — and the step goes through.
TEST_CASE("exported TransformerEncoder trains: its key padding mask's arithmetic is not recorded", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const std::vector<Layer> layers = onnx_layers(import_onnx(kModels + "/transformer_encoder.onnx"), std::nullopt);
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  std::set<std::string> with_backward, savers;
  for (const OpRecord& r : step.backward) with_backward.insert(r.name.substr(0, r.name.find(".backward.")));
  for (const SavedTensor& t : step.saved)
    for (const Saver& s : t.savers) savers.insert(layers[s.layer].name);
  std::size_t mask_layers = 0, wheres = 0;
  for (const Layer& l : layers) {
    const bool on_mask = l.name.find("Where") != std::string::npos || l.name.find("Equal") != std::string::npos ||
                         l.name.find("/Cast") != std::string::npos || l.name.find("/Expand") != std::string::npos;
    if (!on_mask) continue;
    INFO(l.name);
    ++mask_layers;
    wheres += l.name.find("Where") != std::string::npos;
    CHECK_FALSE(with_backward.contains(l.name));
    CHECK_FALSE(savers.contains(l.name));
  }
  CHECK(wheres >= 2);
  CHECK(mask_layers >= 6);
  // every Linear is recorded: its weight gradient, and its input's (the first reads the graph's input, data: none)
  std::size_t grad_inputs = 0, grad_weights = 0;
  for (const OpRecord& r : step.backward) {
    grad_inputs += r.name.ends_with(".backward.grad_input") && r.kind == OpClass::gemm;
    grad_weights += r.name.ends_with(".backward.grad_weight");
  }
  CHECK(grad_weights == 2 * 4);     // per layer: in_proj, out_proj, linear1, linear2
  CHECK(grad_inputs == 2 * 4 - 1);  // all but the first in_proj
  // A Where on the activations' path is recorded, and refused: its backward is not modelled.
  std::vector<Layer> where_on_path = {{"fc", Linear{.tokens = 4, .in = 4, .out = 4}},
                                      {"select", DataMovement{.func = "Where", .elements = 16}}};
  CHECK_THROWS_WITH(training_step(where_on_path, Optimizer::sgd, Convention::exact),
                    Catch::Contains("layer 'select' (data movement Where)"));
}

TEST_CASE("exported Swin block: its window attention swaps, the note naming the score term the variant leaves out",
          "[onnx]") {
  const OnnxModel swin = import_onnx(kModels + "/swin_block.onnx");
  REQUIRE(swin.attention.size() == 1);
  const SoftmaxAttention& found = swin.attention[0].shape;
  // 7×7 padded to 8×8: 4 windows of 4×4 = 16 tokens, 2 heads of width 16; the relative-position bias and the
  // shift mask (folded by the exporter into one constant, kept inline) are read: not causal.
  CHECK(found.batch == 4);
  CHECK(found.heads == 2);
  CHECK(found.queries == 16);
  CHECK(found.keys == 16);
  CHECK(found.head_dim == 16);
  CHECK(found.masked);
  CHECK_FALSE(found.causal);
  CHECK_FALSE(found.mask_unknown);
  AttentionConfig swap;
  swap.variant = AttentionVariant::ecoformer;
  swap.support = 8;  // at most the window's 16 keys
  const std::vector<Layer> layers = onnx_layers(swin, swap);
  const auto swapped = std::find_if(layers.begin(), layers.end(),
                                    [](const Layer& l) { return std::holds_alternative<AttentionConfig>(l.op); });
  REQUIRE(swapped != layers.end());
  const AttentionConfig& a = std::get<AttentionConfig>(swapped->op);
  CHECK(a.batch * a.heads == 8);
  CHECK(a.seq == 16);
  CHECK_FALSE(a.causal);
  CHECK_THAT(swap_dropped_terms_note(swin, AttentionVariant::ecoformer),
             Catch::Contains("1 attention block(s)") && Catch::Contains("/block/MatMul../block/MatMul_1") &&
                 Catch::Contains("the swapped ecoformer's count has no such term"));
  // A causal decoder's mask is carried over by the swap: no note of it; a variant sharing one q/k projection is
  // told that the export's key projections stay counted, another variant nothing.
  const OnnxModel gpt = import_onnx(kModels + "/gpt_tiny.onnx");
  const std::string shared = swap_dropped_terms_note(gpt, AttentionVariant::ecoformer);
  CHECK_THAT(shared, Catch::Contains("key projections") && !Catch::Contains("mask"));
  CHECK(swap_dropped_terms_note(gpt, AttentionVariant::performer).empty());
}
