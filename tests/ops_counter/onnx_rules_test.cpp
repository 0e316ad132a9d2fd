// --rules fvcore on imported models (fvcore_layers): only convolutions, linear layers, matrix products and
// einsums count, biases not; the counts computed by hand from the fixtures' shapes.
#include <catch2/catch.hpp>
#include <cmath>

#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "onnx_or_skip.hpp"

using namespace ecosim;

namespace {

OpCounts fvcore(const std::string& path) {
  OpCounter counter;
  for (const Layer& l : fvcore_layers(onnx_layers(import_onnx(path), std::nullopt)))
    emit(l, Convention::paper, counter);
  return counter.total();
}

}  // namespace

TEST_CASE("fvcore rules: convolutions without their bias, nothing else of a CNN", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const std::string ops = ECOSIM_ONNX_OPS_DIR;
  // 6×8×8 outputs of (4/2)·3² MACs (mmcv adds one per output for the bias)
  CHECK(fvcore(ops + "/conv_groups_bias.onnx").ops(OpKind::mul) == 6 * 8 * 8 * 18);
  // ConvTranspose 4→2, 3×3 on 6×6: every input pixel times 4·2·3² weights; BatchNorm and the pools not counted
  const OpCounts cnn = fvcore(ops + "/cnn_ops.onnx");
  CHECK(cnn.ops(OpKind::mul) == 6 * 6 * 4 * 2 * 9);
  CHECK(cnn.ops(OpKind::add) == 6 * 6 * 4 * 2 * 9);
}

TEST_CASE("fvcore rules: a ViT's patch conv, linear layers and attention products, nothing else", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // tiny_vit: 16 patches of 8·8·3 to width 64; 2 blocks of 17 tokens × (qkv 64·192 + proj 64² + MLP 2·64·256);
  // the head on the class token 64·10; attention 2 blocks × 2 heads × (scores + context) 2·17²·32 (no scale muls)
  const std::uint64_t patches = 16 * 64 * 3 * 64, blocks = 2 * 17 * (64 * 192 + 64 * 64 + 2 * 64 * 256), head = 64 * 10,
                      attention = 2 * 2 * 2 * 17 * 17 * 32;
  const OpCounts c = fvcore(std::string(ECOSIM_ONNX_MODELS_DIR) + "/tiny_vit.onnx");
  CHECK(c.ops(OpKind::mul) == patches + blocks + head + attention);
  CHECK(c.ops(OpKind::add) == patches + blocks + head + attention);
  CHECK(c.ops(OpKind::exp) == 0);
  // the attention products are the block's: --scope attention keeps them (and only them: the export's projections
  // are plain Linear layers)
  OpCounter scope;
  for (const Layer& l :
       fvcore_layers(onnx_layers(import_onnx(std::string(ECOSIM_ONNX_MODELS_DIR) + "/tiny_vit.onnx"), std::nullopt)))
    if (is_attention(l)) emit(l, Convention::paper, scope);
  CHECK(scope.total().ops(OpKind::mul) == attention);
}

TEST_CASE("a two-operand Einsum counts as its batched GEMM, under both rules", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = import_onnx(std::string(ECOSIM_ONNX_OPS_DIR) + "/einsum.onnx");
  // "bhqd,bhkd->bhqk": 2 heads of 6×4 by 4×5; "ij,jk->i" sums k within b alone: not a GEMM, an unknown op
  CHECK(m.unknown_ops == std::map<std::string, std::uint64_t>{{"Einsum", 1}});
  OpCounter exact;
  for (const Layer& l : onnx_layers(m, std::nullopt)) emit(l, Convention::exact, exact);
  CHECK(exact.total().ops(OpKind::mul) == 2 * 6 * 5 * 4);
  CHECK(exact.total().ops(OpKind::add) == 2 * 6 * 5 * 3);
  CHECK(fvcore(std::string(ECOSIM_ONNX_OPS_DIR) + "/einsum.onnx").ops(OpKind::mul) == 2 * 6 * 5 * 4);
}

TEST_CASE("fvcore rules: ResNet-50 and ViT-B/16 count torchvision's published GMACs within 0.5 %", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const std::string models = ECOSIM_ONNX_MODELS_DIR;
  // torchvision's model cards: resnet50 4.09 GFLOPS, vit_b_16 17.56 GFLOPS (fvcore's flops are MACs)
  for (const auto& [file, published] : {std::pair{"resnet50.onnx", 4.09e9}, std::pair{"vit_b_16.onnx", 17.56e9}}) {
    INFO(file);
    const double macs = static_cast<double>(fvcore(models + "/" + file).ops(OpKind::mul));
    CHECK(std::abs(macs / published - 1.0) < 0.005);
  }
}

TEST_CASE("fvcore rules refuse a swapped attention variant", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  AttentionConfig msa;
  const OnnxModel m = import_onnx(std::string(ECOSIM_ONNX_MODELS_DIR) + "/tiny_vit.onnx");
  CHECK_THROWS_WITH(fvcore_layers(onnx_layers(m, msa)), Catch::Contains("no fvcore count"));
}
