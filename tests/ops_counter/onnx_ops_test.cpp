// The ONNX importer on the hand-made fixtures of scripts/make_onnx_fixtures.py: counts computed by hand from the
// formulas of ops_counter/README.md, the attention block found with its shapes, unknown ops warned or refused,
// and hostile files refused with a clear error.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/training_step.hpp"
#include "onnx_or_skip.hpp"

using namespace ecosim;

namespace {

const std::string kOps = ECOSIM_ONNX_OPS_DIR;

OnnxModel fixture(const std::string& name, const OnnxImportOptions& options = {}) {
  return import_onnx(kOps + "/" + name + ".onnx", options);
}

OpCounts total(const OnnxModel& m, Convention convention, const std::optional<AttentionConfig>& swap = {}) {
  OpCounter counter;
  for (const Layer& l : onnx_layers(m, swap)) emit(l, convention, counter);
  return counter.total();
}

std::string error_of(const std::string& path, const OnnxImportOptions& options = {}) {
  try {
    import_onnx(path, options);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("ONNX Conv with groups and bias", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("conv_groups_bias");
  // 1×6×8×8 outputs, each a (4/2)·3·3 = 18-long dot product plus a bias
  const std::uint64_t outputs = 6 * 8 * 8;
  const OpCounts exact = total(m, Convention::exact), paper = total(m, Convention::paper);
  CHECK(exact.ops(OpKind::mul) == outputs * 18);
  CHECK(exact.ops(OpKind::add) == outputs * 17 + outputs);
  CHECK(paper.ops(OpKind::mul) == outputs * 18 + outputs);  // mmcv: k²·(C/g)·C_out·H·W + C_out·H·W
  CHECK(paper.ops(OpKind::add) == outputs * 18 + outputs);
}

TEST_CASE("ONNX batched broadcast MatMul", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("matmul_broadcast");
  // [2,3,4,5] × [3,5,6]: 2·3 products of 4×5 by 5×6
  const OpCounts exact = total(m, Convention::exact);
  CHECK(exact.ops(OpKind::mul) == 6 * 4 * 6 * 5);
  CHECK(exact.ops(OpKind::add) == 6 * 4 * 6 * 4);
  // paper: the products as MACs (never 0: an attention block the importer does not recognise keeps its products)
  CHECK(total(m, Convention::paper).ops(OpKind::mul) == 6 * 4 * 6 * 5);
  CHECK(total(m, Convention::paper).ops(OpKind::add) == 6 * 4 * 6 * 5);
}

TEST_CASE("ONNX ConvTranspose, BatchNormalization and pooling", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("cnn_ops");
  REQUIRE(m.layers.size() == 4);
  // ConvTranspose: 36 input pixels × (2·3·3 = 18) weights each, over 4 input channels, to 2×13×13 outputs;
  // every output receives a contribution (stride 2 ≤ kernel 3): 648 contributions, 338 outputs, 338 biases
  const std::uint64_t contributions = 36 * 18, outputs = 2 * 13 * 13;
  // MaxPool 3×3 stride 2: 2×6×6 windows of 9; GlobalAveragePool: 2 rows of 36
  const OpCounts exact = total(m, Convention::exact), paper = total(m, Convention::paper);
  CHECK(exact.ops(OpKind::mul) == contributions * 4 + outputs + 2);  // products, BatchNorm scale, means
  CHECK(exact.ops(OpKind::add) ==
        contributions * 3 + (contributions - outputs) + outputs + outputs + 2 * 35);  // sums, bias, BN shift, means
  CHECK(exact.ops(OpKind::cmp) == 72 * 8);
  // mmcv: deconv input pixels·C_in·(C_out/g)·k² + bias, BatchNorm 2 per element, pooling 1 per input element
  CHECK(paper.ops(OpKind::mul) == contributions * 4 + outputs + 2 * outputs + outputs + 72);
  CHECK(paper.ops(OpKind::add) == paper.ops(OpKind::mul));
}

TEST_CASE("ONNX average pooling with PyTorch's padding: mmcv counts the module's unpadded input", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("avgpool_padded");
  // 2·8·8·8 = 1,024 windows of 9 over the padded 2·8·18·18; mmcv one MAC per element of the module's input
  // 2·8·16·16 = 4,096 (as MaxPool's pads attribute counts it), not of the padded 5,184
  const OpCounts exact = total(m, Convention::exact), paper = total(m, Convention::paper);
  CHECK(exact.ops(OpKind::mul) == 1024);
  CHECK(exact.ops(OpKind::add) == 1024 * 8);
  CHECK(paper.ops(OpKind::mul) == 2 * 8 * 16 * 16);
  CHECK(paper.ops(OpKind::add) == 2 * 8 * 16 * 16);
}

TEST_CASE("ONNX decomposed LayerNorm counts as one LayerNorm, as LayerNormalization does", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel decomposed = fixture("layernorm_decomposed"), op = fixture("layernorm_op");
  REQUIRE(decomposed.layers.size() == 1);
  CHECK(decomposed.layers[0].name == "mean..beta");
  // 2·5 = 10 rows of 8: per row 3L+2 muls, 4L−1 adds, 1 div, 1 sqrt; paper 2 MACs per element
  for (const OnnxModel* m : {&decomposed, &op}) {
    const OpCounts exact = total(*m, Convention::exact);
    CHECK(exact.ops(OpKind::mul) == 10 * 26);
    CHECK(exact.ops(OpKind::add) == 10 * 31);
    CHECK(exact.ops(OpKind::div) == 10);
    CHECK(exact.ops(OpKind::sqrt) == 10);
    CHECK(total(*m, Convention::paper).ops(OpKind::mul) == 2 * 80);
  }
}

TEST_CASE("ONNX attention block with a mask and fewer keys than queries is found", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("attention_mask");
  REQUIRE(m.attention.size() == 1);
  const FoundAttention& a = m.attention[0];
  CHECK(a.nodes == std::vector<std::string>{"scores", "scale", "mask", "softmax", "context"});
  CHECK(a.shape.batch == 1);
  CHECK(a.shape.heads == 2);
  CHECK(a.shape.queries == 6);
  CHECK(a.shape.keys == 5);
  CHECK(a.shape.head_dim == 4);
  CHECK(a.shape.scaled);
  CHECK(a.shape.masked);
  // g = 2 attentions of 6 queries × 5 keys × width 4
  const std::uint64_t pairs = 2 * 6 * 5;
  const OpCounts exact = total(m, Convention::exact);
  CHECK(exact.ops(OpKind::mul) == 2 * pairs * 4 + pairs + 12 * 5);  // scores + context, scale, softmax normalise
  CHECK(exact.ops(OpKind::add) == pairs * 3 + pairs + 12 * 9 + 2 * 6 * 4 * 4);  // scores, mask, softmax, context
  CHECK(exact.ops(OpKind::exp) == pairs);
  const OpCounts paper = total(m, Convention::paper);
  CHECK(paper.ops(OpKind::mul) == 2 * pairs * 4 + pairs);  // DESIGN §3: q·k and p·v MACs, one scale per score
  CHECK(paper.ops(OpKind::add) == 2 * pairs * 4);
}

TEST_CASE("ONNX attention swapped for a variant keeps the found shapes", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("attention_mask");
  AttentionConfig swap;
  swap.variant = AttentionVariant::performer;
  swap.features = 8;
  const std::vector<Layer> layers = onnx_layers(m, swap);
  const auto* a = std::get_if<AttentionConfig>(&layers.back().op);
  REQUIRE(a);
  CHECK(layers.back().name == "scores..context[performer]");
  CHECK(a->variant == AttentionVariant::performer);
  CHECK(a->features == 8);
  CHECK(a->heads == 2);
  CHECK(a->seq == 6);
  CHECK(a->keys == 5);  // the keys' length kept apart from the queries'
  CHECK(a->head_dim == 4);
  CHECK_FALSE(a->projections);
  // the same as a Performer layer of those shapes counted alone (the K transpose moves bytes only)
  AttentionConfig alone;
  alone.variant = AttentionVariant::performer;
  alone.features = 8;
  alone.heads = 2;
  alone.seq = 6;
  alone.keys = 5;
  alone.head_dim = 4;
  alone.projections = false;
  OpCounter direct;
  emit_attention("alone", alone, Convention::exact, direct);
  for (OpKind k : kAllOpKinds) CHECK(total(m, Convention::exact, swap).ops(k) == direct.total().ops(k));
}

TEST_CASE("ONNX unknown op types are listed and counted as zero, refused under strict", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const OnnxModel m = fixture("unknown_op");
  CHECK(m.unknown_ops == std::map<std::string, std::uint64_t>{{"Foo", 2}});
  CHECK(unknown_op_summary(m) == "Foo ×2");
  CHECK(total(m, Convention::exact).ops(OpKind::cmp) == 16);  // the Relu alone
  CHECK_THROWS_WITH(fixture("unknown_op", {.strict = true}), Catch::Contains("Foo ×2") && Catch::Contains("strict"));
}

TEST_CASE("ONNX a tied head: the token table gathered and read again as the head's weight counts once", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // Gather(table [10, 6], ids) then Gemm(x, table, transB): the head's Linear holds the table's 60 parameters
  const TrainingStep step =
      training_step(onnx_layers(fixture("tied_head"), std::nullopt), Optimizer::sgd, Convention::exact);
  CHECK(step.parameters == 10 * 6);
}

TEST_CASE("ONNX Dropout whose training mode is a graph input is refused, not read as the identity", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  // Whether it keeps a mask for backward is decided at run time: neither reading (identity or mask) is known.
  const std::string error = error_of(kOps + "/dropout_runtime_mode.onnx");
  CHECK_THAT(error, Catch::Contains("'drop'") && Catch::Contains("training_mode 'mode' is not a constant") &&
                        Catch::Contains("TrainingMode"));
}

TEST_CASE("ONNX hostile files are refused with a clear error", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  const std::string hostile = kOps + "/hostile/";
  CHECK_THAT(error_of(hostile + "cycle.onnx"), Catch::Contains("cycle"));
  CHECK_THAT(error_of(hostile + "negative_dim.onnx"), Catch::Contains("negative dimension -3"));
  CHECK_THAT(error_of(hostile + "enormous_dim.onnx"), Catch::Contains("1099511627776 above"));
  CHECK_THAT(error_of(hostile + "missing_shape.onnx"), Catch::Contains("no static shape"));
  CHECK_THAT(error_of(hostile + "overflow_initializer.onnx"), Catch::Contains("more elements than 64 bits"));
  CHECK_THAT(error_of(hostile + "undefined_input.onnx"), Catch::Contains("undefined tensor 'nowhere'"));
  CHECK_THAT(error_of(hostile + "deep_nesting.onnx"), Catch::Contains("nested deeper"));
  // counted as a bare product or a binary Max, C's additions and the third operand's comparisons were lost
  CHECK_THAT(error_of(hostile + "gemm_activations_bias.onnx"), Catch::Contains("a Gemm of two activations plus C"));
  CHECK_THAT(error_of(hostile + "max_three.onnx"), Catch::Contains("node 'max' (Max): has 3 operands"));
  CHECK_THAT(error_of(hostile + "missing_operand.onnx"), Catch::Contains("needs 2 input(s)"));
  CHECK_THAT(error_of(hostile + "empty_operand.onnx"), Catch::Contains("tensor 'a' is empty"));
  CHECK_THAT(error_of(hostile + "empty_initializer.onnx"),
             Catch::Contains("tensor 'delta' stores 0 values where its dims hold 1"));
  // shape arithmetic: a cycle, a Range past the dimension limit, and a shape computed from an unknown one, named
  // with the chain of ops that feeds it
  CHECK_THAT(error_of(hostile + "shape_cycle.onnx"), Catch::Contains("cycle"));
  CHECK_THAT(error_of(hostile + "huge_range.onnx"), Catch::Contains("tensor 'r' has dimension 1000000000000 above"));
  CHECK_THAT(error_of(hostile + "huge_computed_range.onnx"),
             Catch::Contains("node 'range' (Range): Range of 1000000000000 elements is above the limit of 16777216"));
  CHECK_THAT(
      error_of(hostile + "shape_of_unknown.onnx"),
      Catch::Contains("node 'relu' (Relu): tensor 'out' has no static shape (Relu ← Reshape ← Concat ← Unsqueeze "
                      "← Gather ← Shape ← 'x', a graph input without a static shape"));
  CHECK_THAT(error_of(hostile + "bad_reshape.onnx"),
             Catch::Contains("node 'reshape' (Reshape): target [2, 4] does not hold the input's 6 elements"));
  CHECK_THAT(error_of(hostile + "gather_out_of_range.onnx"),
             Catch::Contains("node 'gather' (Gather): index 5 out of range for a dimension of 2"));
  // the Shape of a tensor without a type, and one listed before its producer: libonnx 1.12's data propagation
  // crashed on both (ecosim evaluates shape arithmetic itself and runs ONNX inference without it)
  CHECK_THAT(error_of(hostile + "shape_of_unknown_op.onnx"),
             Catch::Contains("tensor 'c' has no static shape (Cast ← Shape ← Foo (no shape rule for it)"));
  const OnnxModel unsorted = import_onnx(hostile + "shape_before_producer.onnx");
  CHECK(total(unsorted, Convention::exact).ops(OpKind::cmp) == 6);  // the Relu; the Shape costs nothing
  CHECK_THAT(error_of(kOps + "/conv_groups_bias.onnx", {.max_file_bytes = 100}),
             Catch::Contains("limit of 100 bytes") && Catch::Contains("--onnx-max-bytes"));
  CHECK_THAT(error_of(kOps + "/no_such_file.onnx"), Catch::Contains("no_such_file.onnx"));
}

TEST_CASE("ONNX truncated or corrupt bytes are refused", "[onnx]") {
  ECOSIM_ONNX_OR_SKIP();
  std::ifstream in(kOps + "/attention_mask.onnx", std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  REQUIRE(bytes.size() > 100);
  for (std::size_t cut : {std::size_t{1}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 1}) {
    INFO(cut);
    CHECK_THROWS_AS(parse_onnx(bytes.substr(0, cut), "cut"), Error);
  }
  CHECK_THROWS_WITH(parse_onnx("not a model at all", "text"), Catch::Contains("'text'"));
  CHECK_THROWS_AS(parse_onnx("", "empty"), Error);
}
