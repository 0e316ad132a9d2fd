// The training step: backward GEMMs twice the forward, activations' backward by hand, saved tensors with aliasing
// against hand-computed bytes, optimizer state and update ops, the memory curve, ActNN's ResNet-152 activation memory,
// the new zoo entries' published GMACs, and refusals (unmodelled kinds, unknown inputs, 64-bit overflow).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/training_step.hpp"

using namespace ecosim;

namespace {

std::uint64_t muls(const std::vector<OpRecord>& records) {
  std::uint64_t n = 0;
  for (const OpRecord& r : records) n += r.counts.ops(OpKind::mul);
  return n;
}

std::uint64_t adds(const std::vector<OpRecord>& records) {
  std::uint64_t n = 0;
  for (const OpRecord& r : records) n += r.counts.ops(OpKind::add);
  return n;
}

std::vector<Layer> zoo_model(const std::string& model, std::uint64_t batch) {
  ModelOptions o;
  o.batch = batch;
  o.native_attention = true;
  return ModelZoo::builtin().build(model, o);
}

}  // namespace

TEST_CASE("backward of a linear or conv layer: twice the forward's multiplications (and paper MACs)") {
  const std::vector<Layer> layers = {
      {"linear", Linear{.tokens = 6, .in = 5, .out = 7}},
      {"linear_no_bias", Linear{.tokens = 3, .in = 4, .out = 2, .bias = false}},
      {"conv", Conv2d{.batch = 2, .in_ch = 4, .out_ch = 6, .in_h = 9, .in_w = 9, .kernel = 3, .stride = 2, .pad = 1}},
      {"depthwise",
       Conv2d{.batch = 1, .in_ch = 8, .out_ch = 8, .in_h = 5, .in_w = 5, .kernel = 3, .pad = 1, .groups = 8}},
      {"pointwise_no_bias", Conv2d{.batch = 3, .in_ch = 4, .out_ch = 16, .in_h = 4, .in_w = 4, .bias = false}},
  };
  for (const Layer& layer : layers) {
    INFO(layer.name);
    const TrainingStep exact = training_step({layer}, Optimizer::sgd, Convention::exact);
    const bool data = std::holds_alternative<Conv2d>(layer.op);  // a first convolution reads data: no dX
    CHECK(muls(exact.backward) == (data ? 1 : 2) * muls(exact.forward));
    const TrainingStep paper = training_step({layer}, Optimizer::sgd, Convention::paper);
    if (layer.name.ends_with("no_bias")) CHECK(muls(paper.backward) == (data ? 1 : 2) * muls(paper.forward));
    // after another layer its input requires a gradient: dX and dW, twice the forward's products
    const Layer first{"first", ResidualAdd{1}};
    Layer second = layer;
    second.input = "first";
    OpCounter forward;
    emit(layer, Convention::exact, forward);
    const TrainingStep inside = training_step({first, second}, Optimizer::sgd, Convention::exact);
    CHECK(muls(inside.backward) == 2 * forward.total().ops(OpKind::mul));
  }
  // Linear(6×5 → 7): dX = dY·Wᵀ and dW = Xᵀ·dY, 6·5·7 products each; db: 6 − 1 adds per output
  const TrainingStep l = training_step({layers[0]}, Optimizer::sgd, Convention::exact);
  CHECK(muls(l.backward) == 2 * 6 * 5 * 7);
  CHECK(adds(l.backward) == 6 * 5 * (7 - 1) + 5 * 7 * (6 - 1) + 7 * (6 - 1));  // dX, dW (k − 1 per output), db
}

TEST_CASE("a normalisation reading data: dγ and dβ alone, no input gradient") {
  // BN over 2 × 3 channels × 4 × 4 and LayerNorm over 5 rows × 8, each on a network input (data)
  const std::uint64_t bn_elements = 2 * 3 * 4 * 4, ln_elements = 5 * 8;
  for (const auto& [layer, elements] :
       {std::pair{Layer{"bn", BatchNorm2d{.batch = 2, .channels = 3, .h = 4, .w = 4}, network_input_name("x")},
                  bn_elements},
        std::pair{Layer{"ln", LayerNorm{.rows = 5, .width = 8}, network_input_name("x")}, ln_elements}}) {
    INFO(layer.name);
    const TrainingStep data = training_step({layer}, Optimizer::sgd, Convention::exact);
    // x̂ recomputed (a sub, a mul), dγ += dY·x̂, dβ += dY: 2 mul, 3 add per element
    CHECK(muls(data.backward) == 2 * elements);
    CHECK(adds(data.backward) == 3 * elements);
    // after a layer whose output requires a gradient, the full backward: dX too, more of each
    Layer second = layer;
    second.input = "first";
    const TrainingStep inside =
        training_step({{"first", Linear{.tokens = 1, .in = 1, .out = 1}}, second}, Optimizer::sgd, Convention::exact);
    const std::uint64_t linear_muls = 2;  // dX and dW of a 1 × 1 linear
    CHECK(muls(inside.backward) - linear_muls > 2 * elements);
  }
}

TEST_CASE("activations' backward per element: ReLU a compare, SiLU from σ recomputed, GELU's tanh form") {
  const std::uint64_t n = 24;
  const Layer first{"first", Linear{.tokens = 1, .in = 1, .out = 1}};  // so the activation's input needs dX
  const auto backward_of = [&](ActivationFunc f) {
    Layer act{"act", Activation{.func = f, .elements = n}};
    act.input = "first";
    OpCounts counts;
    for (const OpRecord& r : training_step({first, act}, Optimizer::sgd, Convention::exact).backward)
      if (r.name.starts_with("act.")) counts += r.counts;
    return counts;
  };
  // SiLU: s = 1 / (1 + e^−x) (an add, an exp, a division), dY·s·(1 + x·(1 − s)): 3 muls, 2 adds more
  const OpCounts silu = backward_of(ActivationFunc::silu);
  CHECK(silu.ops(OpKind::mul) == 3 * n);
  CHECK(silu.ops(OpKind::add) == 3 * n);
  CHECK(silu.ops(OpKind::exp) == n);
  CHECK(silu.ops(OpKind::div) == n);
  CHECK(backward_of(ActivationFunc::relu).ops(OpKind::cmp) == n);
  CHECK(backward_of(ActivationFunc::gelu).ops(OpKind::mul) == 13 * n);
}

TEST_CASE("saved tensors: a tensor saved by two layers is stored once") {
  // conv(3→8, 8×8) → BN → ReLU → max pool 2×2 → conv(8→4) → mean → linear(4 → 10), batch 2
  const std::vector<Layer> net = {
      {"conv1",
       Conv2d{.batch = 2, .in_ch = 3, .out_ch = 8, .in_h = 8, .in_w = 8, .kernel = 3, .pad = 1, .bias = false}},
      {"bn", BatchNorm2d{2, 8, 8, 8}},
      {"relu", Activation{ActivationFunc::relu, 2 * 8 * 8 * 8}},
      {"pool", MaxPool2d{2, 8, 8, 8, 2, 2, 0}},
      {"conv2", Conv2d{.batch = 2, .in_ch = 8, .out_ch = 4, .in_h = 4, .in_w = 4, .kernel = 3, .pad = 1}},
      {"mean", MeanPool{2, 16, 4}},
      {"fc", Linear{.tokens = 2, .in = 4, .out = 10}},
  };
  const std::vector<SavedTensor> saved = saved_tensors(net);
  // image 2·3·64; conv1 output (BN's input) 2·8·64; BN stats 2·8; ReLU output 2·8·64, which the pool saves
  // again; pool indices 2·8·16 int64; pool output (conv2's input) 2·8·16; conv2 output (mean's input) 2·4·16;
  // mean output (fc's input) 2·4
  const std::uint64_t expected =
      4 * (2 * 3 * 64 + 2 * 8 * 64 + 2 * 8 + 2 * 8 * 64) + 8 * (2 * 8 * 16) + 4 * (2 * 8 * 16 + 2 * 4 * 16 + 2 * 4);
  std::uint64_t total = 0;
  for (const SavedTensor& s : saved) total += s.bytes;
  CHECK(total == expected);
  REQUIRE(saved.size() == 8);
  CHECK(saved[3].layer == "relu");
  CHECK(saved[3].last_saver == 3);  // ReLU's output: saved by the ReLU and the pool, stored once
  CHECK(saved[4].what == "indices");
  CHECK(saved[4].dtype == "int64");
  CHECK(training_step(net, Optimizer::sgd, Convention::exact).activation_bytes == expected);
}

TEST_CASE("dropout: a 1-byte mask, and its output a new tensor the next layer may save") {
  const std::vector<Layer> net = {{"fc1", Linear{.tokens = 4, .in = 3, .out = 5}},
                                  {"drop", Dropout{20}},
                                  {"fc2", Linear{.tokens = 4, .in = 5, .out = 2}},
                                  {"drop2", Dropout{8}},
                                  {"add", ResidualAdd{8}}};
  // fc1's input 12 fp32; mask 20 bool; the dropped fc1 output (fc2's input) 20 fp32; drop2's mask 8 bool (its
  // output goes to an add, which saves nothing)
  const TrainingStep step = training_step(net, Optimizer::sgd, Convention::exact);
  CHECK(step.activation_bytes == 4 * 12 + 20 + 4 * 20 + 8);
  CHECK(step.forward.size() == 5);  // fc1, fc2, add and the two dropouts, which only the training step reports
  OpCounter inference;
  for (const Layer& l : net) emit(l, Convention::exact, inference);
  CHECK(inference.records() == 3);
  CHECK(muls(step.forward) == 4 * 3 * 5 + 20 + 4 * 5 * 2 + 8);
}

TEST_CASE("ResNet shortcut: the downsample conv saves the block input the first conv already saved") {
  const std::vector<Layer> resnet = zoo_model("resnet18", 1);
  std::size_t downsamples = 0;
  for (const SavedTensor& s : saved_tensors(resnet)) {
    CHECK(s.layer.find("downsample.conv") == std::string::npos);  // never a tensor of its own
    if (s.last_saver > s.first_saver && resnet[s.last_saver].name.find("downsample.conv") != std::string::npos)
      ++downsamples;
  }
  CHECK(downsamples == 3);  // layer2.0, layer3.0, layer4.0
}

TEST_CASE("optimizer state and update: SGD one momentum buffer, AdamW two moments") {
  const std::vector<Layer> net = {{"fc", Linear{.tokens = 4, .in = 3, .out = 2}}};  // 8 parameters
  const TrainingStep sgd = training_step(net, Optimizer::sgd, Convention::exact);
  const TrainingStep adamw = training_step(net, Optimizer::adamw, Convention::exact);
  CHECK(sgd.parameters == 8);
  CHECK(sgd.parameter_bytes == 32);
  CHECK(sgd.gradient_bytes == 32);
  CHECK(sgd.optimizer_state_bytes == 32);
  CHECK(adamw.optimizer_state_bytes == 64);
  CHECK(muls(sgd.update) == 3 * 8);
  CHECK(muls(adamw.update) == 8 * 8);
  CHECK(adamw.update.front().counts.ops(OpKind::sqrt) == 8);
  CHECK(parse_optimizer("adamw") == Optimizer::adamw);
  CHECK_THROWS_WITH(parse_optimizer("adam"), Catch::Contains("valid: sgd, adamw"));
}

TEST_CASE("memory curve: up through the forward, down through the backward, peak at its top") {
  const TrainingStep step = training_step(zoo_model("resnet50", 2), Optimizer::adamw, Convention::exact);
  const std::uint64_t base =
      step.parameter_bytes + step.gradient_bytes + step.optimizer_state_bytes + step.buffer_bytes;
  const std::size_t layers = step.memory_curve.size() / 2;
  REQUIRE(step.memory_curve.size() == 2 * layers);
  for (std::size_t i = 1; i < layers; ++i) CHECK(step.memory_curve[i].bytes >= step.memory_curve[i - 1].bytes);
  CHECK(step.memory_curve[layers - 1].bytes == base + step.activation_bytes);  // every saved tensor held
  CHECK(step.memory_curve[layers].phase == "backward");
  CHECK(step.memory_curve.back().bytes > base);  // the first layer's backward: the image and its gradients
  CHECK(step.memory_curve.back().bytes < step.memory_curve[layers].bytes);
  std::uint64_t top = 0;
  for (const MemoryPoint& p : step.memory_curve) top = std::max(top, p.bytes);
  CHECK(step.peak_bytes == top);
  CHECK(step.peak_bytes > base + step.activation_bytes);  // plus the activation gradients of a backward
  // a layer whose input requires no gradient (a Linear on data) holds dY alone during its backward, no dX
  const Layer linear{"fc", Linear{.tokens = 256, .in = 4096, .out = 16}, network_input_name("x")};
  const TrainingStep data = training_step({linear}, Optimizer::sgd, Convention::exact);
  const std::uint64_t data_base = data.parameter_bytes + data.gradient_bytes + data.optimizer_state_bytes;
  REQUIRE(data.memory_curve.back().phase == "backward");
  CHECK(data.memory_curve.back().bytes == data_base + data.activation_bytes + 4 * 256 * 16);
}

TEST_CASE("ActNN Table 5: ResNet-152 at batch 32 keeps 5.28 GB (2^30 B) of activations in FP") {
  const double gib =
      static_cast<double>(
          training_step(zoo_model("resnet152", 32), Optimizer::sgd, Convention::exact).activation_bytes) /
      (1024.0 * 1024.0 * 1024.0);
  INFO("ecosim: " << gib << " GiB");
  CHECK(std::abs(gib / 5.28 - 1) < 0.002);  // 5.288: within 0.2 %
}

TEST_CASE("the new zoo entries: torchvision's published GMACs (conv + linear multiplications)") {
  struct Case {
    const char* model;
    double gmacs;  // torchvision's model documentation (GFLOPS, counted as multiply-accumulates)
  };
  for (const Case& c : {Case{"resnet18", 1.81}, Case{"resnet50", 4.09}, Case{"resnet152", 11.51}, Case{"vgg11", 7.61},
                        Case{"vgg16", 15.47}}) {
    std::uint64_t macs = 0;
    for (const Layer& l : zoo_model(c.model, 1))
      if (std::holds_alternative<Conv2d>(l.op) || std::holds_alternative<Linear>(l.op)) {
        OpCounter counter;
        emit(l, Convention::exact, counter);
        macs += counter.total().ops(OpKind::mul);
      }
    INFO(c.model << ": " << macs / 1e9 << " GMACs");
    CHECK(std::round(macs / 1e7) == std::round(c.gmacs * 100));
  }
  // parameters as torchvision counts them
  CHECK(training_step(zoo_model("resnet50", 1), Optimizer::sgd, Convention::exact).parameters == 25557032);
  // buffers as torchvision's ResNet-18 holds them: 20 BatchNorms over 4,800 channels, a running mean and variance
  // (fp32) per channel and one int64 num_batches_tracked each
  CHECK(training_step(zoo_model("resnet18", 1), Optimizer::sgd, Convention::exact).buffer_bytes ==
        2 * 4800 * 4 + 20 * 8);
  CHECK(training_step(zoo_model("vgg16", 1), Optimizer::sgd, Convention::exact).parameters == 138357544);
  // LRA text (Nyströmformer's settings): token table 512·64 and position table 4096·64; per layer two
  // LayerNorms (2·64 each), q, k, v, o Linear(64, 64) with biases, FFN 64→128→64 with biases; the final
  // LayerNorm; the classifier Linear(64, 128) and Linear(128, 2)
  const std::uint64_t lra_layer = 2 * 128 + 4 * (64 * 64 + 64) + (64 * 128 + 128) + (128 * 64 + 64);
  CHECK(training_step(zoo_model("lra_text", 1), Optimizer::sgd, Convention::exact).parameters ==
        (512 + 4096) * 64 + 2 * lra_layer + 128 + (64 * 128 + 128) + (128 * 2 + 2));
}

TEST_CASE("an encoder's language-model head is tied to its token table: its weights are trained once") {
  // two bidirectional GPT-2 small blocks, with and without the head: the same parameters — the token table
  // 50,257 × 768, the positions 1,024 × 768, per block 2 LayerNorms, qkv, proj and the 4× MLP with biases, and
  // the final LayerNorm (the head reads the token table: 38.6 M more were counted before)
  const ModelZoo zoo = ModelZoo::parse(
                           R"({"g2": {"extends": "gpt2_small", "causal": false, "layers": 2},
          "g2_headless": {"extends": "g2", "lm_head": false}})",
                           "test")
                           .overlaying(ModelZoo::builtin());
  ModelOptions o;
  o.native_attention = true;
  o.seq_len = 16;
  const std::uint64_t c = 768,
                      block = 2 * 2 * c + (3 * c * c + 3 * c) + (c * c + c) + (4 * c * c + 4 * c) + (4 * c * c + c);
  const std::uint64_t expected = (50257 + 1024) * c + 2 * block + 2 * c;
  const TrainingStep tied = training_step(zoo.build("g2", o), Optimizer::sgd, Convention::exact);
  CHECK(tied.parameters == expected);
  CHECK(tied.matmul_weights.back() == 50257 * c);  // the head's matmul reads the table: autocast casts it
  CHECK(training_step(zoo.build("g2_headless", o), Optimizer::sgd, Convention::exact).parameters == expected);
}

TEST_CASE("what each layer reads: the layer before, the last earlier layer of a name, or a network input") {
  std::vector<Layer> layers = {{"a", Linear{}},
                               {"b", Linear{}},
                               {"a", Linear{}},
                               {"c", Linear{}, "a"},
                               {"d", Linear{}, network_input_name("memory")},
                               {"e", ElementwiseMul{}, "b"}};
  layers[5].other = network_input_name("memory");
  const std::vector<LayerReads> reads = layer_reads(layers);
  REQUIRE(reads.size() == layers.size());
  CHECK(reads[0].input == LayerReads::kNetworkInput);  // the first layer: the network's input
  CHECK(reads[1].input == 0);                          // unnamed: the layer before
  CHECK(reads[3].input == 2);                          // "a": the last layer of that name before it
  CHECK(reads[4].input == LayerReads::kNetworkInput);
  CHECK(reads[5].input == 1);
  CHECK(reads[5].other == LayerReads::kNetworkInput);
  CHECK(reads[4].other == LayerReads::kNone);
  // the input data: the first layer's when a convolution takes the images, a named network input always
  CHECK_FALSE(reads_input_data(layers, reads, 0));  // a Linear first: a token model's lookup output
  CHECK(reads_input_data(layers, reads, 4));
  CHECK_FALSE(reads_input_data(layers, reads, 5));  // its *other* operand is the network input, not its input
  const std::vector<Layer> conv_first = {{"conv", Conv2d{}}};
  CHECK(reads_input_data(conv_first, layer_reads(conv_first), 0));
  // the two operands of e: b's output and the network input d also read, stored once (two savers)
  const std::vector<SavedTensor> saved = saved_tensors(layers);
  std::size_t memory_savers = 0;
  for (const SavedTensor& t : saved)
    if (t.producer == SavedTensor::kNetworkInput && t.first_saver == 4) memory_savers = t.savers.size();
  CHECK(memory_savers == 2);
  const std::vector<Layer> later = {{"fc1", Linear{}, "fc2"}, {"fc2", Linear{}}};  // names an only later layer
  CHECK_THROWS_WITH(layer_reads(later), Catch::Contains("layer 'fc1' reads 'fc2', no layer before it"));
}

TEST_CASE("refused: unmodelled layer kinds and variants, unknown inputs, 64-bit overflow") {
  Elementwise max;
  max.func = "Max";
  CHECK_THROWS_WITH(training_step({{"odd", max}}, Optimizer::sgd, Convention::exact),
                    Catch::Contains("layer 'odd' (elementwise Max)") && Catch::Contains("not modelled"));
  Elementwise reversed_div{.func = "Div",
                           .elements = 1,
                           .per_element = {},
                           .inputs = 2,
                           .paper_macs = 0,
                           .constant_operands = 1};  // c / x: refused
  CHECK_THROWS_WITH(training_step({{"odd", reversed_div}}, Optimizer::sgd, Convention::exact),
                    Catch::Contains("elementwise Div with a constant operand"));
  AttentionConfig eco;
  eco.variant = AttentionVariant::ecoformer;
  eco.seq = 64;
  CHECK_THROWS_WITH(training_step({{"attn", eco}}, Optimizer::sgd, Convention::exact),
                    Catch::Contains("layer 'attn' (ecoformer attention)"));
  const std::vector<Layer> dangling = {{"fc1", Linear{}}, {"fc2", Linear{}, "nowhere"}};
  CHECK_THROWS_WITH(saved_tensors(dangling), Catch::Contains("layer 'fc2' reads 'nowhere'"));
  // 2^39 images of ResNet-152: about 2^39 · 170 MB of saved tensors, beyond 2^64 bytes
  CHECK_THROWS_WITH(training_step(zoo_model("resnet152", std::uint64_t{1} << 39), Optimizer::sgd, Convention::exact),
                    Catch::Contains("overflow") && Catch::Contains("64 bits"));
}

TEST_CASE("an import's layer kinds save what autograd keeps: views alias, constants are not kept") {
  // Linear(8→16) over 4 tokens, a view of its output (a transpose), x·2 (nothing), x·y of two activations (both),
  // Tanh (its output), an attention core over 2 heads of 3 queries, 5 keys, width 4 with dropout on the
  // probabilities (q, k, v, probabilities, mask and dropped probabilities), max pooling (input and int64
  // indices).
  const std::vector<Layer> layers = {
      {"fc", Linear{.tokens = 4, .in = 8, .out = 16}},
      {"t", DataMovement{.func = "Transpose", .elements = 64, .view = true}},
      {"fc2", Linear{.tokens = 4, .in = 16, .out = 16}},
      {"scale",
       Elementwise{
           .func = "Mul", .elements = 64, .per_element = {}, .inputs = 2, .paper_macs = 0, .constant_operands = 2}},
      {"gate",
       Elementwise{
           .func = "Mul", .elements = 64, .per_element = {}, .inputs = 2, .paper_macs = 0, .constant_operands = 0}},
      {"tanh",
       Elementwise{
           .func = "Tanh", .elements = 64, .per_element = {}, .inputs = 1, .paper_macs = 0, .constant_operands = 0}},
      {"attn", SoftmaxAttention{.batch = 1, .heads = 2, .queries = 3, .keys = 5, .head_dim = 4, .probs_dropout = true}},
      {"pool", Reduction{.func = "MaxPool", .rows = 6, .len = 4, .per_row = {}, .paper_macs = 0}},
  };
  std::map<std::string, std::uint64_t> bytes;
  for (const SavedTensor& t : saved_tensors(layers)) bytes[t.layer + "." + t.what] += t.bytes;
  const std::map<std::string, std::uint64_t> expected = {
      {"fc.input", 4 * 8 * 4},
      {"fc2.input", 4 * 16 * 4},  // the view's storage: fc's output
      {"gate.input", 64 * 4},     // the scaled tensor (x·2 kept nothing)
      {"gate.other", 64 * 4},
      {"tanh.output", 64 * 4},
      {"attn.q", 2 * 3 * 4 * 4},
      {"attn.k", 2 * 5 * 4 * 4},
      {"attn.probs", 2 * 3 * 5 * 4},
      {"attn.probs_dropout_mask", 2 * 3 * 5},  // bool
      {"attn.dropped_probs", 2 * 3 * 5 * 4},
      {"attn.v", 2 * 5 * 4 * 4},
      {"pool.input", 24 * 4},  // the attention's output, 2·3·4 elements
      {"pool.indices", 6 * 8},
  };
  CHECK(bytes == expected);
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  std::uint64_t sum = 0;
  for (const auto& [what, b] : expected) sum += b;
  CHECK(step.activation_bytes == sum);
  // the attention core's backward: four gradient matmuls, each of one forward matmul's 2·3·5·4 products
  std::uint64_t products = 0, gemms = 0;
  for (const OpRecord& r : step.backward)
    if (r.name.starts_with("attn.backward.") && r.kind == OpClass::gemm) {
      products += r.counts.ops(OpKind::mul);
      ++gemms;
    }
  CHECK(gemms == 4);
  CHECK(products == 4 * (2 * 3 * 5 * 4));
  // the probabilities' dropout runs in the forward too: a compare making the mask and a multiply applying it per
  // probability (as the zoo's attention counts it)
  std::uint64_t dropout_cmps = 0, dropout_muls = 0;
  for (const OpRecord& r : step.forward)
    if (r.name == "attn.probs_dropout")
      dropout_cmps += r.counts.ops(OpKind::cmp), dropout_muls += r.counts.ops(OpKind::mul);
  CHECK(dropout_cmps == 2 * 3 * 5);
  CHECK(dropout_muls == 2 * 3 * 5);
}

TEST_CASE("a product keeps only what a computed gradient needs and shared weights count once") {
  // h = Linear(x); A·h with the adjacency A data (dA never computed: h not kept, A kept for dh); (A·h)·m with the
  // mask m data (m kept for the product's gradient, the product not); its result times a learned γ of 8 elements
  // broadcast over the 4 rows (the product kept for dγ); a second Linear applying h's weights again
  std::vector<Layer> layers = {
      {"h", Linear{.tokens = 4, .in = 8, .out = 8}, network_input_name("x")},
      {"adj_h", Matmul{.batch = 1, .m = 4, .n = 8, .k = 4}, network_input_name("adjacency"), false, 0, "h"},
      {"masked",
       Elementwise{
           .func = "Mul", .elements = 32, .per_element = {}, .inputs = 2, .paper_macs = 0, .constant_operands = 0},
       "", false, 0, network_input_name("mask")},
      {"scaled",
       Elementwise{.func = "Mul",
                   .elements = 32,
                   .operand_elements = {0, 8},
                   .per_element = {},
                   .inputs = 2,
                   .paper_macs = 0,
                   .constant_operands = 2,
                   .learned_operands = 2},
       "", false, 8},
      {"fc2", Linear{.tokens = 4, .in = 8, .out = 8}},
  };
  layers.back().shared_parameters = 8 * 8 + 8;
  std::map<std::string, std::uint64_t> bytes;
  for (const SavedTensor& t : saved_tensors(layers)) bytes[t.layer + "." + t.what] += t.bytes;
  const std::map<std::string, std::uint64_t> expected = {
      {"h.input", 32 * 4},       // x, data, kept for dW
      {"adj_h.input", 16 * 4},   // A, for dh = Aᵀ·dY
      {"masked.other", 32 * 4},  // m, for d(A·h) = dY·m
      {"scaled.input", 32 * 4},  // A·h·m, for dγ = Σ dY·(A·h·m)
      {"fc2.input", 32 * 4},
  };
  CHECK(bytes == expected);
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  CHECK(step.parameters == 8 * 8 + 8 + 8);  // h's weights and bias once, γ
  std::map<std::string, std::uint64_t> backward_muls, backward_adds;
  for (const OpRecord& r : step.backward) {
    backward_muls[r.name] += r.counts.ops(OpKind::mul);
    backward_adds[r.name] += r.counts.ops(OpKind::add);
  }
  CHECK_FALSE(backward_muls.contains("adj_h.backward.grad_a"));     // dA: A is data
  CHECK(backward_muls.at("adj_h.backward.grad_b") == 4 * 8 * 4);    // dh = Aᵀ·dY
  CHECK(backward_muls.at("masked.backward.grad_input") == 32);      // dY·m only
  CHECK(backward_muls.at("scaled.backward.grad_input") == 2 * 32);  // dY·γ and dY·x
  CHECK(backward_adds.at("scaled.backward.grad_input") == 32);      // dγ summed over the rows
}

TEST_CASE("LRA retrieval's classifier keeps the pair's concatenation of four features") {
  // [x0, x1, x0·x1, x0 − x1]: 4·embed_dim per pair, a tensor of its own that the first classifier layer saves
  const std::vector<Layer> layers = zoo_model("lra_retrieval", 3);
  const auto fc1 =
      std::find_if(layers.begin(), layers.end(), [](const Layer& l) { return l.name == "classifier.fc1"; });
  REQUIRE(fc1 != layers.end());
  const std::uint64_t features = std::get<Linear>(fc1->op).in;
  CHECK(features == 4 * std::get<LayerNorm>(layers[1].op).width);  // the first block's norm: embed_dim wide
  std::uint64_t kept = 0;
  for (const SavedTensor& t : saved_tensors(layers))
    if (t.layer == "classifier.fc1") kept += t.bytes;
  CHECK(kept == 3 * features * 4);
}
