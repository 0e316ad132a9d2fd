// The ONNX importer's shape evaluator (ops_counter/src/onnx/onnx_shape_eval.cpp) on the fixture shape_eval of
// scripts/make_onnx_fixtures.py: every op's shape and folded value computed by hand.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <iterator>

#include "onnx_graph.hpp"

using namespace ecosim;
using namespace ecosim::onnx_import;

namespace {

Graph read_fixture(const std::string& name) {
  const std::string path = std::string(ECOSIM_ONNX_OPS_DIR) + "/" + name + ".onnx";
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  REQUIRE(!bytes.empty());
  return read_onnx_graph(bytes, path);
}

std::vector<std::uint64_t> dims(const Graph& g, const std::string& t) {
  INFO(t);
  REQUIRE(g.tensors.contains(t));
  REQUIRE(g.tensors.at(t).dims);
  return *g.tensors.at(t).dims;
}

std::vector<std::int64_t> ints(const Graph& g, const std::string& t) {
  INFO(t);
  REQUIRE(g.tensors.at(t).values);
  REQUIRE_FALSE(g.tensors.at(t).values->real);
  return g.tensors.at(t).values->ints;
}

using D = std::vector<std::uint64_t>;
using V = std::vector<std::int64_t>;

}  // namespace

TEST_CASE("shape evaluator: Reshape with 0 and -1, Shape, Gather", "[onnx]") {
  const Graph g = read_fixture("shape_eval");
  CHECK(dims(g, "reshape_0_m1") == D{2, 12});      // 0 copies 2, −1 is the rest: 24 / 2
  CHECK(dims(g, "reshape_m1_0_2") == D{4, 3, 2});  // 0 copies dimension 1 (3), −1 = 24 / (3·2)
  CHECK(ints(g, "shape") == V{2, 3, 4});
  CHECK(dims(g, "gather_scalar").empty());  // a scalar index removes the axis
  CHECK(ints(g, "gather_scalar") == V{3});
  CHECK(ints(g, "gather_list") == V{4, 2});  // index −1 is the last
  CHECK(g.folded.contains("shape"));
}

TEST_CASE("shape evaluator: Slice with negative, clamped, reversed and strided bounds", "[onnx]") {
  const Graph g = read_fixture("shape_eval");
  CHECK(ints(g, "slice_tail") == V{3, 4});         // [−2, INT64_MAX) clamped to [1, 3)
  CHECK(ints(g, "slice_reversed") == V{4, 3, 2});  // from −1 down past INT64_MIN (clamped to −1), step −1
  CHECK(dims(g, "slice_clamped") == D{0});         // [5, 100) of 3 elements: empty
  CHECK(ints(g, "slice_step") == V{1, 4, 7});      // 0..9 from 1, step 3
}

TEST_CASE("shape evaluator: Range, Where, Expand, Concat, Transpose", "[onnx]") {
  const Graph g = read_fixture("shape_eval");
  CHECK(ints(g, "range_10") == V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(ints(g, "range_down") == V{10, 6, 2});  // ⌈(0 − 10) / −4⌉ = 3 elements
  CHECK(ints(g, "where") == V{2, -1, 4});       // the 3 replaced
  CHECK(dims(g, "expand") == D{2, 3, 4});       // [3, 1] broadcast to [2, 1, 4]
  const V e = ints(g, "expand");
  CHECK(e[0] == 1);
  CHECK(e[3] == 1);
  CHECK(e[4] == 2);
  CHECK(e[11] == 3);
  CHECK(e[12] == 1);  // the second copy
  CHECK(ints(g, "pads_x6") == V{4, 2, 1, 0, 0, 0});
  CHECK(ints(g, "transposed") == V{1, 3, 2, 4});
}

TEST_CASE("shape evaluator: Trilu, Tile, ScatterND, Split, Pad", "[onnx]") {
  const Graph g = read_fixture("shape_eval");
  CHECK(ints(g, "ones") == V(9, 1));
  CHECK(ints(g, "lower") == V{1, 0, 0, 1, 1, 0, 1, 1, 1});
  CHECK(ints(g, "upper_1") == V{0, 1, 1, 0, 0, 1, 0, 0, 0});  // above the diagonal (k = 1)
  CHECK(dims(g, "tile") == D{2, 4});
  CHECK(ints(g, "tile") == V{5, 6, 5, 6, 5, 6, 5, 6});
  CHECK(ints(g, "scatter_rows") == V{4, 5, 6, 1, 1, 1, 7, 8, 9});  // rows 2 and 0 replaced
  CHECK(ints(g, "scatter_elem") == V{1, 1, 1, 1, 1, 0, 1, 1, 1});  // element [1][−1]
  CHECK(ints(g, "split_a") == V{0, 1});
  CHECK(ints(g, "split_b") == V{2, 3, 4, 5, 6});
  CHECK(ints(g, "half_a") == V{0, 1, 2});  // no sizes: equal parts
  CHECK(ints(g, "half_b") == V{3, 4, 5});
  CHECK(dims(g, "pad") == D{2, 3});  // one row before, one column after
  CHECK(ints(g, "pad") == V{0, 0, 0, 5, 6, 0});
  CHECK(dims(g, "pad_x") == D{6, 5, 5});  // [2, 3, 4] padded before by the computed [4, 2, 1]
}

TEST_CASE("shape evaluator: integer Mod, Div, Cast and MatMul shapes", "[onnx]") {
  const Graph g = read_fixture("shape_eval");
  CHECK(ints(g, "mod") == V{2, -2});  // fmod 0: the divisor's sign (−7 mod 3 = 2, 7 mod −3 = −2)
  CHECK(ints(g, "div") == V{-3, 3});  // integer division truncates
  CHECK(ints(g, "cast") == V{2, -2});
  CHECK(dims(g, "matmul") == D{2, 3, 5});
}

TEST_CASE("shape evaluator: Clip folds with constant bounds, as ONNX clamps (min > max gives max)", "[onnx]") {
  const Graph g = read_fixture("shape_eval");
  const auto reals = [&](const std::string& t) {
    INFO(t);
    REQUIRE(g.tensors.at(t).values);
    REQUIRE(g.tensors.at(t).values->real);
    return g.tensors.at(t).values->reals;
  };
  CHECK(reals("clip_crossed") == std::vector<double>{3, 3, 3});
  CHECK(reals("clip_low") == std::vector<double>{0, 5, 9});
  CHECK(dims(g, "clip_nan") == D{3});
  CHECK_FALSE(g.tensors.at("clip_nan").values);  // every value NaN: nothing a mask or a shape could use
}

TEST_CASE("shape evaluator: opset 18's axes and num_outputs inputs", "[onnx]") {
  const Graph g = read_fixture("shape_eval_opset18");
  CHECK(dims(g, "mean") == D{2, 3});       // axes [−1] as an input, keepdims 0
  CHECK(dims(g, "part_a") == D{2, 3, 3});  // 5 in 2 parts: ⌈5/2⌉ and the rest
  CHECK(dims(g, "part_b") == D{2, 3, 2});
  CHECK(dims(g, "padded") == D{2, 6, 5});  // axis 1 padded by 1 before, 2 after
}
