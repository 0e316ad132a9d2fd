// Each network layer's counts against values computed by hand, in both conventions.
#include <catch2/catch.hpp>

#include "ecosim/ops_counter/conv_shape.hpp"
#include "record_helpers.hpp"

using namespace ecosim;
using test::count;

TEST_CASE("Linear: exact K muls and K-1 adds + bias per output — paper one MAC per weight use") {
  const Layer l{"fc", Linear{.tokens = 10, .in = 4, .out = 3, .bias = true}};
  const OpCounts e = count(l, Convention::exact);
  CHECK(e.ops(OpKind::mul) == 10 * 3 * 4);
  CHECK(e.ops(OpKind::add) == 10 * 3 * 3 + 10 * 3);
  CHECK(e.read_bytes() == (10 * 4 + 4 * 3 + 3) * 4);  // inputs, weights once, bias
  CHECK(e.written_bytes() == 10 * 3 * 4);
  const OpCounts p = count(l, Convention::paper);
  CHECK(p.ops(OpKind::mul) == 120);
  CHECK(p.ops(OpKind::add) == 120);  // bias not counted by mmcv for Linear
  CHECK(p.read_bytes() == e.read_bytes());
}

TEST_CASE("Conv2d: im2col counts, padding taps included — paper adds the bias MACs") {
  // 16×16×3 → 8×8×8, k3 s2 p1: 64 pixels × 8 channels × 27 taps
  const Layer l{
      "conv", Conv2d{.batch = 1, .in_ch = 3, .out_ch = 8, .in_h = 16, .in_w = 16, .kernel = 3, .stride = 2, .pad = 1}};
  const OpCounts e = count(l, Convention::exact);
  CHECK(e.ops(OpKind::mul) == 64 * 8 * 27);
  CHECK(e.ops(OpKind::add) == 64 * 8 * 26 + 64 * 8);
  const OpCounts p = count(l, Convention::paper);
  CHECK(p.ops(OpKind::mul) == 64 * 8 * 27 + 64 * 8);
  CHECK(p.ops(OpKind::add) == p.ops(OpKind::mul));
}

TEST_CASE("Conv2d emits one conv record: its geometry in params, input, weights and output read or written once") {
  RecordingSink sink;
  emit(
      {"conv",
       Conv2d{
           .batch = 2, .in_ch = 4, .out_ch = 6, .in_h = 9, .in_w = 7, .kernel = 3, .stride = 2, .pad = 1, .groups = 2}},
      Convention::exact, sink);
  REQUIRE(sink.records.size() == 1);
  const OpRecord& r = sink.records[0];
  CHECK(r.kind == OpClass::conv);
  // out 5×4; m = pixels, n = out channels, k = (4/2)·3·3
  CHECK((r.batch == 2 && r.m == 20 && r.n == 6 && r.k == 18));
  const ConvShape s = conv_shape(r);
  CHECK((s.in_channels == 4 && s.in_h == 9 && s.in_w == 7 && s.out_channels == 6 && s.kernel_h == 3 &&
         s.kernel_w == 3 && s.stride == 2 && s.padding == 1 && s.groups == 2));
  CHECK(r.counts.read_bytes(DType::fp32) == 4 * (2 * 4 * 9 * 7 + 6 * 18 + 6));  // input, weights, bias
  CHECK(r.counts.written_bytes(DType::fp32) == 4 * 2 * 6 * 20);
}

TEST_CASE("depthwise Conv2d counts one input channel per output") {
  const Layer l{
      "dw",
      Conv2d{
          .batch = 2, .in_ch = 4, .out_ch = 4, .in_h = 5, .in_w = 5, .kernel = 3, .stride = 1, .pad = 1, .groups = 4}};
  const OpCounts e = count(l, Convention::exact);
  CHECK(e.ops(OpKind::mul) == 2 * 25 * 4 * 9);
  CHECK(e.ops(OpKind::add) == 2 * 25 * 4 * 8 + 2 * 25 * 4);
  CHECK(count(l, Convention::paper).ops(OpKind::mul) == 2 * 25 * 4 * 9 + 2 * 25 * 4);
}

TEST_CASE("Conv2d rejects groups that do not divide the channels and kernels larger than the input") {
  const Layer bad_groups{"c", Conv2d{.in_ch = 3, .out_ch = 4, .in_h = 4, .in_w = 4, .groups = 2}};
  const Layer too_small{"c", Conv2d{.in_h = 2, .in_w = 2, .kernel = 5}};
  CHECK_THROWS_AS(count(bad_groups, Convention::exact), Error);
  CHECK_THROWS_AS(count(too_small, Convention::exact), Error);
}

TEST_CASE("LayerNorm: 4C-1 adds, 3C+2 muls, one div and one sqrt per row — paper 2 MACs per element") {
  const Layer l{"ln", LayerNorm{.rows = 2, .width = 8}};
  const OpCounts e = count(l, Convention::exact);
  CHECK(e.ops(OpKind::add) == 2 * 31);
  CHECK(e.ops(OpKind::mul) == 2 * 26);
  CHECK(e.ops(OpKind::div) == 2);
  CHECK(e.ops(OpKind::sqrt) == 2);
  CHECK(count(l, Convention::paper).ops(OpKind::mul) == 32);
  // without γ and β: C muls and C adds fewer a row; mmcv 1 MAC per element
  const Layer plain{"ln", LayerNorm{.rows = 2, .width = 8, .affine = false}};
  CHECK(count(plain, Convention::exact).ops(OpKind::add) == 2 * 23);
  CHECK(count(plain, Convention::exact).ops(OpKind::mul) == 2 * 18);
  CHECK(count(plain, Convention::paper).ops(OpKind::mul) == 16);
}

TEST_CASE("activations: GELU (tanh form) and ReLU") {
  const OpCounts gelu = count({"g", Activation{ActivationFunc::gelu, 10}}, Convention::exact);
  CHECK(gelu.ops(OpKind::mul) == 60);
  CHECK(gelu.ops(OpKind::add) == 40);
  CHECK(gelu.ops(OpKind::exp) == 10);
  CHECK(gelu.ops(OpKind::div) == 10);
  CHECK(count({"g", Activation{ActivationFunc::gelu, 10}}, Convention::paper).ops(OpKind::mul) == 0);
  const Layer relu{"r", Activation{ActivationFunc::relu, 10}};
  CHECK(count(relu, Convention::exact).ops(OpKind::cmp) == 10);
  CHECK(count(relu, Convention::paper).ops(OpKind::mul) == 10);  // mmcv: elements of the output
}

TEST_CASE("residual add, elementwise product and mean pooling") {
  CHECK(count({"r", ResidualAdd{7}}, Convention::exact).ops(OpKind::add) == 7);
  CHECK(count({"r", ResidualAdd{7}}, Convention::paper).ops(OpKind::add) == 0);
  CHECK(count({"x", ElementwiseMul{7}}, Convention::exact).ops(OpKind::mul) == 7);
  const OpCounts pool = count({"p", MeanPool{.batch = 2, .tokens = 5, .width = 3}}, Convention::exact);
  CHECK(pool.ops(OpKind::add) == 2 * 3 * 4);
  CHECK(pool.ops(OpKind::mul) == 2 * 3);
  CHECK(count({"p", MeanPool{.batch = 2, .tokens = 5, .width = 3}}, Convention::paper).ops(OpKind::add) == 0);
}

TEST_CASE("an elementwise op reads each operand once, a broadcast one at its own size") {
  // x [256, 64] + bias [64]; x · s [1, 64]; x − 1.0 (a scalar); x · y, both full: each written once
  for (const auto& [other, read] :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{64, 16384 + 64}, {1, 16384 + 1}, {0, 2 * 16384}}) {
    INFO(other);
    const OpCounts c = count(
        {"e",
         Elementwise{
             .func = "Add", .elements = 16384, .operand_elements = {0, other}, .per_element = {.add = 1}, .inputs = 2}},
        Convention::exact);
    CHECK(c.ops(OpKind::add) == 16384);
    CHECK(c.read_bytes() == 4 * read);
    CHECK(c.written_bytes() == 4 * 16384);
  }
}

TEST_CASE("average pooling, softmax and matmul layers") {
  // 2×8×8 channels, 2×2 windows, stride 2: 2·16 outputs of 3 adds and 1 mul; paper: one MAC per input
  const Layer pool{"pool", AvgPool2d{.batch = 1, .channels = 2, .in_h = 8, .in_w = 8, .kernel = 2, .stride = 2}};
  CHECK(count(pool, Convention::exact).ops(OpKind::add) == 32 * 3);
  CHECK(count(pool, Convention::exact).ops(OpKind::mul) == 32);
  CHECK(count(pool, Convention::paper).ops(OpKind::mul) == 128);
  const OpCounts sm = count({"sm", Softmax{.batch = 2, .rows = 3, .len = 5}}, Convention::exact);
  CHECK(sm.ops(OpKind::exp) == 30);
  CHECK(sm.ops(OpKind::cmp) == 6 * 4);
  CHECK(sm.ops(OpKind::add) == 6 * 9);
  CHECK(count({"sm", Softmax{.rows = 3, .len = 5}}, Convention::paper).ops(OpKind::exp) == 0);
  const Layer mm{"mm", Matmul{.batch = 2, .m = 3, .n = 4, .k = 5}};
  CHECK(count(mm, Convention::exact).ops(OpKind::mul) == 2 * 3 * 4 * 5);
  CHECK(count(mm, Convention::exact).ops(OpKind::add) == 2 * 3 * 4 * 4);
  CHECK(count(mm, Convention::paper).ops(OpKind::mul) == 2 * 3 * 4 * 5);  // never 0: the products are MACs
  CHECK(count(mm, Convention::paper).ops(OpKind::add) == 2 * 3 * 4 * 5);
}

TEST_CASE("max pooling: window − 1 compares an output, overlapping windows read their input once") {
  // ResNet's stem pool: 3×3 windows at stride 2 with padding 1, 4 channels of 16×16 → 8×8
  const Layer pool{"pool",
                   MaxPool2d{.batch = 2, .channels = 4, .in_h = 16, .in_w = 16, .kernel = 3, .stride = 2, .pad = 1}};
  const OpCounts exact = count(pool, Convention::exact);
  const std::uint64_t outputs = 2 * 4 * 8 * 8, inputs = 2 * 4 * 16 * 16;
  CHECK(exact.ops(OpKind::cmp) == outputs * 8);
  CHECK(exact.read_bytes(DType::fp32) == 4 * inputs);  // not its windows' 9 · outputs, 2.25 times as many
  CHECK(exact.written_bytes(DType::fp32) == 4 * outputs);
  CHECK(count(pool, Convention::paper).ops(OpKind::mul) == inputs);  // mmcv: one MAC an input element
}

TEST_CASE("records carry the layer name and gemm shape") {
  test::RecordingSink sink;
  emit({"stage1.fc1", Linear{.tokens = 6, .in = 2, .out = 5}}, Convention::exact, sink);
  REQUIRE(sink.records.size() == 1);
  const OpRecord& r = sink.records[0];
  CHECK(r.name == "stage1.fc1");
  CHECK(r.kind == OpClass::gemm);
  CHECK((r.m == 6 && r.n == 5 && r.k == 2 && r.batch == 1));
}
