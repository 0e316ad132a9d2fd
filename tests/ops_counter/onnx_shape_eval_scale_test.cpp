// The shape evaluator's bounds on graphs generated here with ONNX's protobuf classes: 10,000 nodes of shape
// arithmetic import in under a second of CPU time, and folded values stay within kMaxFoldedTotal elements.
#include <onnx/onnx_pb.h>

#include <catch2/catch.hpp>
#include <ctime>
#include <limits>

#include "ecosim/ops_counter/onnx_model.hpp"
#include "onnx_graph.hpp"

using namespace ecosim;

namespace {

onnx::ModelProto empty_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(17);
  return m;
}

void int64_initializer(onnx::GraphProto* g, const std::string& name, std::vector<std::int64_t> values, bool scalar) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  if (!scalar) t->add_dims(static_cast<std::int64_t>(values.size()));
  for (std::int64_t v : values) t->add_int64_data(v);
}

void float_input(onnx::GraphProto* g, const std::string& name, std::vector<std::int64_t> dims) {
  auto* in = g->add_input();
  in->set_name(name);
  auto* type = in->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : dims) type->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> in, const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

/// A Cast of `in` to ONNX type `to`.
void cast(onnx::GraphProto* g, const std::string& in, std::int64_t to, const std::string& out) {
  auto* attribute = node(g, "Cast", {in}, out)->add_attribute();
  attribute->set_name("to");
  attribute->set_type(onnx::AttributeProto::INT);
  attribute->set_i(to);
}

/// A ConstantOfShape of `size` (an initializer) filled with −∞.
void minus_infinity(onnx::GraphProto* g, const std::string& size, const std::string& out) {
  auto* value = node(g, "ConstantOfShape", {size}, out)->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_float_data(-std::numeric_limits<float>::infinity());
}

/// `m`'s graph read, with a Relu of a float input as the network (the nodes under test compute on constants).
onnx_import::Graph read_with_network(onnx::ModelProto& m) {
  float_input(m.mutable_graph(), "network_input", {1, 8});
  node(m.mutable_graph(), "Relu", {"network_input"}, "network_output");
  m.mutable_graph()->add_output()->set_name("network_output");
  return onnx_import::read_onnx_graph(m.SerializeAsString(), "generated");
}

}  // namespace

TEST_CASE("shape evaluator: a 10000-node graph of shape arithmetic imports in under a second", "[onnx]") {
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  float_input(g, "h0", {1, 64});
  int64_initializer(g, "one", {1}, false);
  int64_initializer(g, "index", {1}, true);
  int64_initializer(g, "axes", {0}, false);
  // 2,000 × (Shape → Gather → Unsqueeze → Concat → Reshape): each Reshape's target computed from the last shape
  constexpr int kGroups = 2000;
  for (int i = 0; i < kGroups; ++i) {
    const std::string k = std::to_string(i), h = "h" + k, next = "h" + std::to_string(i + 1);
    node(g, "Shape", {h}, "s" + k);
    node(g, "Gather", {"s" + k, "index"}, "g" + k);
    node(g, "Unsqueeze", {"g" + k, "axes"}, "u" + k);
    auto* concat = node(g, "Concat", {"one", "u" + k}, "c" + k);
    auto* axis = concat->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    node(g, "Reshape", {h, "c" + k}, next);
  }
  node(g, "Relu", {"h" + std::to_string(kGroups)}, "y");
  g->add_output()->set_name("y");
  REQUIRE(g->node_size() == 5 * kGroups + 1);
  const std::string bytes = m.SerializeAsString();
  const std::clock_t start = std::clock();
  const OnnxModel model = parse_onnx(bytes, "generated");
  const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  CHECK(seconds < 1.0);
  REQUIRE(model.layers.size() == 1);  // the Relu; the shape arithmetic costs nothing, the Reshapes are views
  CHECK(std::get<Activation>(model.layers[0].op).elements == 64);
}

TEST_CASE("shape evaluator: folded values stay within the overall budget", "[onnx]") {
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  int64_initializer(g, "size", {static_cast<std::int64_t>(onnx_import::kMaxFoldedElements)}, false);
  // 100 tensors of 2^16 elements each: 6.5 M elements, past the overall budget of 2^22
  for (int i = 0; i < 100; ++i) node(g, "ConstantOfShape", {"size"}, "z" + std::to_string(i));
  float_input(g, "x", {1, 8});
  node(g, "Relu", {"x"}, "y");
  g->add_output()->set_name("y");
  const onnx_import::Graph graph = onnx_import::read_onnx_graph(m.SerializeAsString(), "generated");
  std::size_t folded = 0;
  for (const auto& [name, t] : graph.tensors)
    if (graph.folded.contains(name)) {
      REQUIRE(t.values);
      folded += t.values->size();
      CHECK(t.dims == std::vector<std::uint64_t>{onnx_import::kMaxFoldedElements});
    }
  CHECK(folded <= onnx_import::kMaxFoldedTotal);
  CHECK(folded == onnx_import::kMaxFoldedTotal);  // 64 of the 100 fit exactly
  for (int i = 0; i < 100; ++i)                   // every one has its shape all the same
    CHECK(graph.tensors.at("z" + std::to_string(i)).dims ==
          std::vector<std::uint64_t>{onnx_import::kMaxFoldedElements});
}

TEST_CASE("shape evaluator: bands over 300 × 300 — a causal mask found without its elements, absent inputs none",
          "[onnx]") {
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  int64_initializer(g, "size", {300, 300}, false);
  minus_infinity(g, "size", "minus_inf");
  int64_initializer(g, "one", {1}, true);
  node(g, "Trilu", {"minus_inf", "one"}, "causal");         // −∞ above the diagonal, 0 on and below it
  node(g, "Trilu", {"minus_inf"}, "shifted");               // k = 0: the diagonal masked too — not causal
  node(g, "Where", {"", "minus_inf", "causal"}, "absent");  // no condition: no band (nothing read past the inputs)
  const onnx_import::Graph graph = read_with_network(m);
  const auto& causal = graph.tensors.at("causal");
  REQUIRE(causal.band);
  CHECK(!causal.values);  // 90,000 elements: past the per-tensor budget, kept as a band
  CHECK(causal.causal_additive);
  CHECK_FALSE(graph.tensors.at("shifted").causal_additive);
  CHECK_FALSE(graph.tensors.at("absent").band);
}

TEST_CASE("shape evaluator: a Cast to FLOAT16 or BFLOAT16 rounds as the type stores values", "[onnx]") {
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  auto* x = g->add_initializer();
  x->set_name("x");
  x->set_data_type(onnx::TensorProto::DOUBLE);
  x->add_dims(4);
  for (double v : {1e-8, 65520.0, 1.0 / 3.0, 70000.0}) x->add_double_data(v);
  cast(g, "x", 10, "half");
  cast(g, "x", 16, "bfloat");
  const onnx_import::Graph graph = read_with_network(m);
  const auto &half = graph.tensors.at("half").values, bfloat = graph.tensors.at("bfloat").values;
  REQUIRE(half);
  REQUIRE(bfloat);
  const double inf = std::numeric_limits<double>::infinity();
  // fp16 (as torch.float16 rounds them): 1e-8 below half its smallest step 2^-24 (0), 65520 halfway past 65504
  // (ties to even: 65536, so ∞), 1/3 to 10 fraction bits, 70000 past the range
  CHECK(half->reals == std::vector<double>{0.0, inf, 0.333251953125, inf});
  // bf16: 7 fraction bits, float's range (the values torch.bfloat16 gives)
  CHECK(bfloat->reals == std::vector<double>{std::ldexp(1.34375, -27), 65536.0, 0.333984375, 70144.0});
}

TEST_CASE("shape evaluator: a narrowing integer Cast keeps no value it cannot hold but INT64 keeps every one",
          "[onnx]") {
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  int64_initializer(g, "fits", {255, 0, 7}, false);
  int64_initializer(g, "wraps", {256, 1}, false);  // 256 as UINT8: the runtimes wrap it to 0 or saturate it
  int64_initializer(g, "largest", {std::numeric_limits<std::int64_t>::max()}, false);  // a Slice's open end
  cast(g, "fits", 2, "fits_u8");
  cast(g, "wraps", 2, "wraps_u8");
  cast(g, "largest", 7, "largest_i64");
  const onnx_import::Graph graph = read_with_network(m);
  REQUIRE(graph.tensors.at("fits_u8").values);
  CHECK(graph.tensors.at("fits_u8").values->ints == std::vector<std::int64_t>{255, 0, 7});
  CHECK_FALSE(graph.tensors.at("wraps_u8").values);
  REQUIRE(graph.tensors.at("largest_i64").values);
  CHECK(graph.tensors.at("largest_i64").values->ints ==
        std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max()});
}

TEST_CASE("shape evaluator: a folded causal mask expanded past the budget stays a causal band", "[onnx]") {
  // Trilu(−∞ [6, 6], k = 1) folds (36 elements); expanded over 2,000 heads (72,000 elements) it is a band
  onnx::ModelProto m = empty_model();
  auto* g = m.mutable_graph();
  int64_initializer(g, "size", {6, 6}, false);
  int64_initializer(g, "heads", {1, 2000, 6, 6}, false);
  int64_initializer(g, "one", {1}, true);
  minus_infinity(g, "size", "minus_inf");
  node(g, "Trilu", {"minus_inf", "one"}, "causal");
  node(g, "Expand", {"causal", "heads"}, "per_head");
  const onnx_import::Graph graph = read_with_network(m);
  REQUIRE(graph.tensors.at("causal").values);
  CHECK(graph.tensors.at("causal").causal_additive);
  const auto& per_head = graph.tensors.at("per_head");
  REQUIRE(per_head.band);
  CHECK(per_head.causal_additive);
}
