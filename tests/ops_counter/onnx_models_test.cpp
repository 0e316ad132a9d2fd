// The models exported from PyTorch by scripts/export_models.py: PVTv2-B0 counts exactly as the zoo's
// pvt_v2_b0 with its own (SRA) attention in both conventions, and every attention block is found with its shapes.
#include <catch2/catch.hpp>

#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
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
