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

}  // namespace

TEST_CASE("exported PVTv2-B0 counts exactly as the zoo's pvt_v2_b0 with native attention", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel model = import_onnx(kModels + "/pvt_v2_b0.onnx");
  CHECK(model.unknown_ops.empty());
  ModelOptions native;
  native.native_attention = true;
  const std::vector<Layer> zoo = ModelZoo::builtin().build("pvt_v2_b0", native);
  for (Convention convention : {Convention::paper, Convention::exact}) {
    INFO(name(convention));
    CHECK(operations(total(onnx_layers(model, std::nullopt), convention)) == operations(total(zoo, convention)));
  }
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
