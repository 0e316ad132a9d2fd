// Activation schemes on a training step's saved tensors (issue 20): the seeds' published tables computed — ActNN
// Table 5 (ResNet-152, and the Conv-BN-ReLU bit arithmetic), GACT Table 3 (BERT-large at a fixed 4 bits), Mesa
// Table 1 (DeiT-Ti at batch 128) — each scheme at most `none`'s bytes on every zoo family, the stored bytes equal
// to the bytes the kernels' own compress records write, and refused scheme names, levels and bit widths.
#include <catch2/catch.hpp>
#include <cmath>
#include <set>

#include "ecosim/kernels/actnn.hpp"
#include "ecosim/kernels/training_schemes.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"

using namespace ecosim;
using namespace ecosim::kernels::schemes;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0, kMiB = 1024.0 * 1024.0;

std::vector<Layer> zoo_model(const std::string& model, std::uint64_t batch) {
  ModelOptions o;
  o.batch = batch;
  o.native_attention = true;
  return ModelZoo::builtin().build(model, o);
}

struct Run {
  TrainingStep step;
  std::vector<SchemeStep> schemes;
};

Run run(const std::string& model, std::uint64_t batch, const std::vector<std::string>& names,
        Optimizer optimizer = Optimizer::sgd) {
  const std::vector<Layer> layers = zoo_model(model, batch);
  Run r{training_step(layers, optimizer, Convention::exact), {}};
  for (const std::string& n : names) r.schemes.push_back(apply_scheme(parse_scheme(n), layers, r.step, batch));
  return r;
}

/// |computed / published − 1|
double deviation(double computed, double published) { return std::abs(computed / published - 1.0); }

}  // namespace

TEST_CASE("ActNN Table 5: ResNet-152 at batch 32, FP 5.28 GB -> L3 0.44 GB (2^30 B), 12x") {
  const Run r = run("resnet152", 32, {"none", "actnn:L3"});
  const double fp = r.schemes[0].activation_bytes / kGiB, l3 = r.schemes[1].activation_bytes / kGiB;
  WARN("ResNet-152 b32: FP " << fp << " GiB (published 5.28), ActNN L3 " << l3 << " GiB (0.44), ratio " << fp / l3
                             << " (12)");
  CHECK(r.schemes[0].activation_bytes == r.step.activation_bytes);
  CHECK(deviation(fp, 5.28) < 0.01);
  // the published figures have two significant digits; ecosim stores the block input twice where the downsample
  // conv quantizes it too (ActNN's layers compress their inputs independently): +2.4 % on L3
  CHECK(deviation(l3, 0.44) < 0.05);
  CHECK(deviation(fp / l3, 12.0) < 0.05);
}

TEST_CASE("ActNN Table 5: a Conv-BN-ReLU block keeps 64 bits an element in FP, 5.25 at 2 bits, 17 under Mesa") {
  // K identical blocks conv(64→64, 3×3) → BN → ReLU at batch 32, 56×56: in FP each block adds the BN input and
  // the ReLU output (the next conv's input, stored once); under ActNN L3 the conv and BN inputs at 2 bits plus
  // 32 bits of bf16 metadata per 256 elements, and a 1-bit ReLU mask.
  constexpr std::uint64_t kBlocks = 4, batch = 32, c = 64, hw = 56;
  std::vector<Layer> layers;
  for (std::uint64_t k = 0; k < kBlocks; ++k) {
    const std::string b = "block" + std::to_string(k);
    layers.push_back(
        {b + ".conv", Conv2d{.batch = batch, .in_ch = c, .out_ch = c, .in_h = hw, .in_w = hw, .kernel = 3, .pad = 1}});
    layers.push_back({b + ".bn", BatchNorm2d{.batch = batch, .channels = c, .h = hw, .w = hw}});
    layers.push_back({b + ".relu", Activation{.func = ActivationFunc::relu, .elements = batch * c * hw * hw}});
  }
  const double n = batch * c * hw * hw;  // elements of every activation
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  const SchemeStep l3 = apply_scheme(parse_scheme("actnn:L3"), layers, step, batch);
  // per-channel statistics are not activations: leave them out of both
  double fp_bits = 0, l3_bits = 0;
  for (const SavedTensor& s : step.saved)
    if (s.what != "stats") fp_bits += 8.0 * s.bytes;
  for (const StoredTensor& s : l3.stored)
    if (step.saved[s.saved].what != "stats") l3_bits += 8.0 * s.bytes;
  CHECK((fp_bits - 32.0 * n) / (kBlocks * n) == Approx(64.0).epsilon(1e-12));
  // Σ = first conv input + K·(BN input + mask) + (K − 1)·(next conv input), at 2 + 32/256 bits a code
  CHECK(8.0 * kernels::actnn::kMetadataBytesPerGroup / kernels::actnn::kGroupSize == 0.125);
  CHECK(l3_bits / (kBlocks * n) == Approx(5.25).epsilon(1e-12));
  // Mesa wraps Conv, BN and ReLU (its custom_conv, custom_bn and custom_relu): the conv and BN inputs as 8-bit
  // codes with one (α, β) each, and a packed 1-bit ReLU mask — 17 bits a block's element, nothing at fp16 beside
  const SchemeStep mesa = apply_scheme(parse_scheme("mesa"), layers, step, batch);
  double mesa_bits = 0;
  for (const StoredTensor& s : mesa.stored) {
    if (step.saved[s.saved].what == "stats") continue;
    CHECK((s.form == "mesa8" || s.form == "mask1"));
    mesa_bits += 8.0 * s.bytes;
  }
  const double conv_bn_inputs = 2 * kBlocks, alpha_beta_bits = 2 * 32;  // an fp32 (α, β) per wrapped tensor
  CHECK((mesa_bits - conv_bn_inputs * alpha_beta_bits) / (kBlocks * n) == Approx(17.0).epsilon(1e-12));
}

TEST_CASE("GACT Table 3: BERT-large at a fixed 4 bits saves 7.55x the activation memory") {
  const Run r = run("bert_large", 4, {"none", "gact:4"});
  const double ratio = double(r.schemes[0].activation_bytes) / r.schemes[1].activation_bytes;
  WARN("BERT-large gact:4: " << ratio << "x (published 7.55x)");
  // floating tensors at 32 / (4 + 0.125 bits of metadata) = 7.76x, 1-byte dropout masks at 1 bit (8x)
  CHECK(ratio < 8.0);
  CHECK(deviation(ratio, 7.55) < 0.05);
  // the gap's cause: GACT's reference keeps each group's minimum and scale in fp32 (64 bits per 256 elements,
  // 4.25 bits an element at 4 bits), ecosim's kernels in bf16 (4.125); at fp32 metadata the ratio is the paper's
  double codes_elements = 0, other_bytes = 0;
  for (const StoredTensor& t : r.schemes[1].stored)
    (t.form == "gact4" ? codes_elements : other_bytes) += t.form == "gact4" ? r.step.saved[t.saved].elements : t.bytes;
  const double at_fp32_metadata = r.step.activation_bytes / (codes_elements * (4 + 64.0 / 256) / 8 + other_bytes);
  WARN("BERT-large gact:4 with GACT's fp32 group metadata: " << at_fp32_metadata << "x");
  CHECK(deviation(at_fp32_metadata, 7.55) < 0.01);
}

TEST_CASE("Mesa Table 1: DeiT-Ti at batch 128, 4,171 MB AMP -> 1,858 MB Mesa (2.24x)") {
  const Run r = run("deit_tiny", 128, {"amp", "mesa"}, Optimizer::adamw);
  const double amp = r.schemes[0].peak_bytes / kMiB, mesa = r.schemes[1].peak_bytes / kMiB;
  WARN("DeiT-Ti b128 peak: AMP " << amp << " MiB (published 4171), Mesa " << mesa << " MiB (1858), ratio " << amp / mesa
                                 << " (2.24)");
  CHECK(deviation(amp / mesa, 2.24) < 0.10);
  CHECK(deviation(amp, 4171.0) < 0.25);
  CHECK(deviation(mesa, 1858.0) < 0.25);
}

TEST_CASE("every scheme keeps at most none's activation bytes, on every zoo family (amp: besides its weight copies)") {
  const std::vector<std::string> all = {"none",   "amp",      "actnn:L1", "actnn:L2", "actnn:L3",
                                        "gact:1", "gact:2",   "gact:4",   "gact:8",   "gact:32",
                                        "mesa",   "fewbit:1", "fewbit:2", "fewbit:3", "fewbit:4"};
  for (const std::string model : {"resnet18", "resnet50", "vgg11", "deit_tiny", "swin_tiny", "bert_large"}) {
    const Run r = run(model, 2, all);
    // autocast's fp16 copy of every weight a matmul reads, kept by amp alone (2 bytes an element)
    std::uint64_t weights = 0;
    for (const std::uint64_t w : r.step.matmul_weights) weights += w;
    for (const SchemeStep& s : r.schemes) {
      INFO(model << " " << s.scheme.name());
      std::uint64_t copies = 0;
      for (const StoredTensor& t : s.stored)
        if (t.saved == StoredTensor::kWeightCopy) copies += t.bytes;
      CHECK(copies == (s.scheme.kind == SchemeKind::amp ? 2 * weights : 0));
      CHECK(s.activation_bytes - copies <= r.step.activation_bytes);
      CHECK(s.peak_bytes - copies <= r.step.peak_bytes);
      CHECK(s.memory_curve.size() == r.step.memory_curve.size());
      for (const StoredTensor& t : s.stored) {  // the bytes kept in DRAM by type add up to the copy's bytes
        std::uint64_t kept = 0;
        for (const auto& [type, bytes] : t.kept) kept += bytes;
        CHECK(kept == t.bytes);
      }
    }
    CHECK(r.schemes[0].activation_bytes == r.step.activation_bytes);
    CHECK(r.schemes[0].peak_bytes == r.step.peak_bytes);
    // more bits keep more: ActNN L1 ≥ L2 ≥ L3, GACT 1 < 2 < 4 < 8 < 32 bits
    CHECK(r.schemes[2].activation_bytes >= r.schemes[3].activation_bytes);
    CHECK(r.schemes[3].activation_bytes >= r.schemes[4].activation_bytes);
    for (std::size_t i = 5; i < 9; ++i) CHECK(r.schemes[i].activation_bytes < r.schemes[i + 1].activation_bytes);
    // gact:32 keeps the floating tensors raw and packs the 1-byte dropout masks to a bit an element
    std::uint64_t packed = r.step.activation_bytes;
    for (const SavedTensor& t : r.step.saved)
      if (t.dtype == "bool") packed = packed - t.bytes + (t.elements + 7) / 8;
    CHECK(r.schemes[9].activation_bytes == packed);
  }
}

TEST_CASE("the compressed copies' bytes are the bytes the kernels' compress records write") {
  for (const std::string name : {"actnn:L2", "actnn:L3", "gact:4", "mesa"}) {
    INFO(name);
    const Run r = run("deit_tiny", 2, {name});
    const SchemeStep& s = r.schemes[0];
    std::uint64_t compressed = 0, written = 0, read_back = 0;
    for (const StoredTensor& t : s.stored)
      if (t.form.starts_with("actnn") || t.form.starts_with("gact") || t.form.starts_with("mesa"))
        compressed += t.bytes;
    for (const OpRecord& rec : s.compress) written += rec.counts.written_bytes();
    for (const OpRecord& rec : s.decompress) read_back += rec.counts.read_bytes();
    CHECK(compressed > 0);
    CHECK(written == compressed);
    CHECK(read_back == compressed);
    CHECK(s.compress.size() == s.decompress.size());
  }
}

TEST_CASE("refused: unknown schemes and levels, bits outside a scheme's range") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(parse_scheme("zip"), Contains("unknown scheme 'zip'") && Contains("actnn:L1|L2|L3"));
  CHECK_THROWS_WITH(parse_scheme("actnn"), Contains("needs a level"));
  CHECK_THROWS_WITH(parse_scheme("gact"), Contains("needs bits"));
  CHECK_THROWS_WITH(parse_scheme("actnn:L4"), Contains("unknown ActNN level 'L4'") && Contains("L1, L2, L3"));
  CHECK_THROWS_WITH(parse_scheme("gact:3"), Contains("3"));
  CHECK_THROWS(parse_scheme("gact:0"));
  CHECK_THROWS_WITH(parse_scheme("gact:-1"), Contains("not a bit width"));
  CHECK_THROWS_WITH(parse_scheme("gact:4x"), Contains("not a bit width"));
  CHECK_THROWS_WITH(parse_scheme("fewbit:5"), Contains("5"));
  CHECK_THROWS(parse_scheme("fewbit:0"));
  CHECK_THROWS_WITH(parse_scheme("fewbit:99999999999"), Contains("not a bit width"));
  CHECK(parse_scheme("actnn:L2").name() == "actnn:L2");
  CHECK(parse_scheme("gact:32").name() == "gact:32");
  // ActNN L3 allocates bits sample by sample (its memory and time grow with the batch): beyond 2^20 samples it is
  // refused, naming L2, which takes any batch
  const std::uint64_t huge = (std::uint64_t{1} << 20) + 1;
  const std::vector<Layer> big = zoo_model("resnet18", huge);
  const TrainingStep step = training_step(big, Optimizer::sgd, Convention::exact);
  CHECK_THROWS_WITH(apply_scheme(parse_scheme("actnn:L3"), big, step, huge),
                    Contains("a batch of 1048577") && Contains("actnn:L2"));
  CHECK_NOTHROW(apply_scheme(parse_scheme("actnn:L2"), big, step, huge));
  // the defaults where each applies: no mesa on a CNN, no fewbit without GELU/SiLU
  std::vector<std::string> names;
  for (const Scheme& s : default_schemes(zoo_model("resnet18", 1))) names.push_back(s.name());
  CHECK(names == std::vector<std::string>{"none", "amp", "actnn:L3", "gact:4"});
  names.clear();
  for (const Scheme& s : default_schemes(zoo_model("deit_tiny", 1))) names.push_back(s.name());
  CHECK(names == std::vector<std::string>{"none", "amp", "actnn:L3", "gact:4", "mesa", "fewbit:2"});
}

TEST_CASE("max batch: the largest batch whose step peaks within the memory, per scheme") {
  const NetworkAt resnet18 = [](std::uint64_t batch) { return zoo_model("resnet18", batch); };
  for (const std::string name : {"none", "actnn:L3"}) {
    INFO(name);
    const Scheme s = parse_scheme(name);
    const std::vector<Layer> at37 = zoo_model("resnet18", 37);
    const std::uint64_t peak37 =
        apply_scheme(s, at37, training_step(at37, Optimizer::sgd, Convention::exact), 37).peak_bytes;
    const MaxBatch exact = max_batch(s, resnet18, Optimizer::sgd, peak37);
    CHECK(exact.batch == 37);
    CHECK(exact.peak_bytes == peak37);
    CHECK(max_batch(s, resnet18, Optimizer::sgd, peak37 - 1).batch == 36);
    CHECK(max_batch(s, resnet18, Optimizer::sgd, 1).batch == 0);  // not even one sample
  }
  // compression buys batch: on ResNet-152 ActNN L3 fits 6.6-14x none's batch (ActNN's headline) in 16 GiB; on
  // ResNet-18 less, its peak then held up by the fp32 activation gradients of the stem in backward
  const NetworkAt resnet152 = [](std::uint64_t batch) { return zoo_model("resnet152", batch); };
  const std::uint64_t gib16 = std::uint64_t{16} << 30;
  const std::uint64_t none = max_batch(parse_scheme("none"), resnet152, Optimizer::sgd, gib16).batch;
  const std::uint64_t l3 = max_batch(parse_scheme("actnn:L3"), resnet152, Optimizer::sgd, gib16).batch;
  WARN("ResNet-152 in 16 GiB: none " << none << ", ActNN L3 " << l3 << " (" << double(l3) / none << "x)");
  CHECK(l3 >= 6.6 * none);
  CHECK(l3 <= 14 * none);
}

TEST_CASE("amp: autocast's forms — LayerNorm input fp32, a Linear's fp16 cast of it, GELU as produced") {
  // LayerNorm(10 rows × 8) → Linear(8 → 32) → GELU → Linear(32 → 8): fp32 network input
  const std::vector<Layer> mlp = {{"norm", LayerNorm{.rows = 10, .width = 8}},
                                  {"fc1", Linear{.tokens = 10, .in = 8, .out = 32}},
                                  {"act", Activation{.func = ActivationFunc::gelu, .elements = 320}},
                                  {"fc2", Linear{.tokens = 10, .in = 32, .out = 8}}};
  const TrainingStep step = training_step(mlp, Optimizer::sgd, Convention::exact);
  const SchemeStep amp = apply_scheme(parse_scheme("amp"), mlp, step, 1);
  std::vector<std::string> forms;
  for (const StoredTensor& s : amp.stored) forms.push_back(mlp[s.first_saver].name + ":" + s.form);
  // the LayerNorm's fp32 output is kept only as fc1's fp16 cast; fc1's fp16 output by GELU as is; then each
  // Linear's weights as autocast's fp16 copy (8 × 32 elements each), which its matmul saves
  CHECK(forms ==
        std::vector<std::string>{"norm:fp32", "norm:fp32", "fc1:fp16", "act:fp16", "fc2:fp16", "fc1:fp16", "fc2:fp16"});
  CHECK(amp.activation_bytes == 80 * 4 + 20 * 4 + 80 * 2 + 320 * 2 + 320 * 2 + 2 * 256 * 2);
  CHECK(step.activation_bytes == 80 * 4 + 20 * 4 + 80 * 4 + 320 * 4 + 320 * 4);
}

TEST_CASE("the step's records: each stored copy written to DRAM once and read back once, compression on chip") {
  const std::vector<Layer> layers = zoo_model("deit_tiny", 2);
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  for (const std::string name : {"none", "amp", "actnn:L3", "gact:4", "mesa", "fewbit:2"}) {
    INFO(name);
    const SchemeStep s = apply_scheme(parse_scheme(name), layers, step, 2);
    const std::vector<OpRecord> records = step_records(step, s, layers);
    std::uint64_t saved = 0, restored = 0, compression_bytes = 0;
    for (const OpRecord& r : records) {
      if (r.name.find(".save_for_backward.") != std::string::npos) saved += r.counts.written_bytes();
      if (r.name.find(".restore.") != std::string::npos) restored += r.counts.read_bytes();
      if (r.name.find(".compress.") != std::string::npos || r.name.find(".decompress.") != std::string::npos)
        compression_bytes += r.counts.read_bytes() + r.counts.written_bytes();
    }
    CHECK(saved == s.activation_bytes);
    CHECK(restored == s.activation_bytes);
    CHECK(compression_bytes == 0);
    CHECK(records.size() == step.forward.size() + s.backward.size() + step.update.size() + s.compress.size() +
                                s.decompress.size() + 2 * [&] {
                                  std::size_t n = 0;
                                  for (const StoredTensor& t : s.stored) n += t.kept.size();
                                  return n;
                                }());
  }
}

TEST_CASE("fewbit: the activation's backward is its decompress record, dY × level[code], not f′(x) as well") {
  // Linear(8 → 32) → GELU → Linear(32 → 8) over 10 tokens: the GELU's 320 elements
  const std::vector<Layer> mlp = {{"fc1", Linear{.tokens = 10, .in = 8, .out = 32}},
                                  {"act", Activation{.func = ActivationFunc::gelu, .elements = 320}},
                                  {"fc2", Linear{.tokens = 10, .in = 32, .out = 8}}};
  const TrainingStep step = training_step(mlp, Optimizer::sgd, Convention::exact);
  const SchemeStep none = apply_scheme(parse_scheme("none"), mlp, step, 1);
  const SchemeStep fewbit = apply_scheme(parse_scheme("fewbit:2"), mlp, step, 1);
  const auto named = [](const std::vector<OpRecord>& records, const std::string& prefix) {
    return std::count_if(records.begin(), records.end(), [&](const OpRecord& r) { return r.name.starts_with(prefix); });
  };
  CHECK(none.backward.size() == step.backward.size());
  CHECK(named(step.backward, "act.backward.") == 1);
  CHECK(named(fewbit.backward, "act.backward.") == 0);  // f′(x) never computed
  CHECK(fewbit.backward.size() == step.backward.size() - 1);
  REQUIRE(fewbit.decompress.size() == 1);
  CHECK(fewbit.decompress[0].name.starts_with("act.decompress."));
  CHECK(fewbit.decompress[0].counts.ops(OpKind::mul) == 320);  // one multiply an element
  // and the step's records carry the scheme's backward
  const std::vector<OpRecord> records = gpu_step_records(step, fewbit);
  CHECK(named(records, "act.backward.") == 0);
}

TEST_CASE("the step's records on a GPU: no copies of what autograd keeps, compression kernels over device memory") {
  const std::vector<Layer> layers = zoo_model("deit_tiny", 2);
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  for (const std::string name : {"none", "gact:4", "mesa", "fewbit:2"}) {
    INFO(name);
    const SchemeStep s = apply_scheme(parse_scheme(name), layers, step, 2);
    const std::vector<OpRecord> records = gpu_step_records(step, s);
    CHECK(records.size() ==
          step.forward.size() + s.backward.size() + step.update.size() + s.compress.size() + s.decompress.size());
    std::uint64_t compression_bytes = 0, expected = 0;
    for (const OpRecord& r : records) {
      CHECK(r.name.find(".save_for_backward.") == std::string::npos);
      CHECK(r.name.find(".restore.") == std::string::npos);
      if (r.name.find(".compress.") != std::string::npos || r.name.find(".decompress.") != std::string::npos)
        compression_bytes += r.counts.read_bytes() + r.counts.written_bytes();
    }
    for (const auto* list : {&s.compress, &s.decompress})
      for (const OpRecord& r : *list) expected += r.counts.read_bytes() + r.counts.written_bytes();
    CHECK(compression_bytes == expected);  // each kernel reads and writes device memory, as it runs
    CHECK((name == "none") == (expected == 0));
  }
}

TEST_CASE("gact:avgB: GACT's allocation under an average budget — uniform at a width, mixed between widths") {
  // every element equally sensitive: the allocation at an average of 4 bits is 4 bits everywhere, gact:4 itself
  const Run r = run("resnet18", 4, {"gact:4", "gact:avg4", "gact:2", "gact:avg3"});
  CHECK(r.schemes[1].activation_bytes == r.schemes[0].activation_bytes);
  CHECK(r.schemes[1].scheme.name() == "gact:avg4");
  // between the widths: some tensors at 2 bits, some at 4, the code bits within the budget of 3 an element
  std::uint64_t quantized = 0, code_bits = 0;
  std::set<std::string> forms;
  for (const StoredTensor& t : r.schemes[3].stored)
    if (t.form.starts_with("gact")) {
      forms.insert(t.form);
      const std::uint64_t elements = r.step.saved[t.saved].elements;
      quantized += elements;
      code_bits += elements * std::stoul(t.form.substr(4));
    }
  CHECK(forms.contains("gact2"));
  CHECK(forms.contains("gact4"));
  CHECK(code_bits <= 3 * quantized);
  CHECK(code_bits > 2 * quantized);
  CHECK(r.schemes[3].activation_bytes > r.schemes[2].activation_bytes);
  CHECK(r.schemes[3].activation_bytes < r.schemes[0].activation_bytes);
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(parse_scheme("gact:avg0.5"), Contains("average budget"));
  CHECK_THROWS_WITH(parse_scheme("gact:avg"), Contains("average budget"));
  CHECK_THROWS_WITH(parse_scheme("gact:avg40"), Contains("[1, 32]"));
}

TEST_CASE("amp: an op of an fp16 and an fp32 activation gives fp32, whichever operand comes first") {
  // Linear(8 → 8) over 4 tokens (fp16 out), then its output plus the fp32 network input (as `fc + x` or `x + fc`),
  // ReLU (keeps its output), Linear(8 → 8): the sum is fp32, so ReLU keeps 32 fp32 and fc2 its fp16 cast of them
  for (const bool fc_first : {true, false}) {
    INFO(fc_first);
    const std::string input = network_input_name("x");
    Layer add{.name = "add",
              .op = Elementwise{.func = "Add", .elements = 32, .per_element = {.add = 1}, .inputs = 2},
              .input = fc_first ? "fc" : input,
              .other = fc_first ? input : "fc"};
    const std::vector<Layer> layers = {{.name = "fc", .op = Linear{4, 8, 8}, .input = input},
                                       add,
                                       {"relu", Activation{.func = ActivationFunc::relu, .elements = 32}},
                                       {"fc2", Linear{4, 8, 8}}};
    const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
    const SchemeStep amp = apply_scheme(parse_scheme("amp"), layers, step, 1);
    std::vector<std::string> forms;
    for (const StoredTensor& s : amp.stored)
      if (s.saved != StoredTensor::kWeightCopy) forms.push_back(layers[s.first_saver].name + ":" + s.form);
    CHECK(forms == std::vector<std::string>{"fc:fp16", "relu:fp32", "fc2:fp16"});
    CHECK(amp.activation_bytes == 32 * 2 + 32 * 4 + 32 * 2 + 2 * 64 * 2);  // and the two weights' fp16 copies
  }
}

TEST_CASE("amp: a layer keeping a view of an fp16 output keeps the whole fp16 storage") {
  // Linear(8 → 8) over 10 tokens (fp16 under autocast), GELU over half of its output (a chunk: a view, 40 of the
  // 80 elements): autograd keeps the chunk's whole storage, as produced — 80 fp16 — as `none` keeps 80 fp32
  const std::vector<Layer> layers = {{"fc", Linear{10, 8, 8}},
                                     {"act", Activation{.func = ActivationFunc::gelu, .elements = 40}}};
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  CHECK(step.activation_bytes == 80 * 4 + 80 * 4);  // fc's input, the GELU's whole input storage
  const SchemeStep amp = apply_scheme(parse_scheme("amp"), layers, step, 1);
  std::vector<std::string> forms;
  for (const StoredTensor& s : amp.stored) forms.push_back(layers[s.first_saver].name + ":" + s.form);
  // and autocast's fp16 copy of fc's 8 × 8 weights, which its matmul saves
  CHECK(forms == std::vector<std::string>{"fc:fp16", "act:fp16", "fc:fp16"});
  CHECK(amp.stored.back().saved == StoredTensor::kWeightCopy);
  CHECK(amp.activation_bytes == 80 * 2 + 80 * 2 + 64 * 2);
}

TEST_CASE("a tensor two layers keep parts of is stored whole once when kept raw, each part apart when compressed") {
  // the final norm's output (10 rows × 8) read by two heads, each a part of it (a distilled ViT's class and
  // distillation tokens: 2 rows each)
  const std::vector<Layer> layers = {{"norm", LayerNorm{10, 8}},
                                     {"head", Linear{2, 8, 3}},
                                     {.name = "head_dist", .op = Linear{2, 8, 3}, .input = "norm"}};
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  const SchemeStep none = apply_scheme(parse_scheme("none"), layers, step, 2);
  CHECK(none.activation_bytes == step.activation_bytes);  // the norm's output once, whole (autograd's storage)
  const SchemeStep gact = apply_scheme(parse_scheme("gact:4"), layers, step, 2);
  std::size_t parts = 0;  // copies of the norm's output (layer 0's): one per head, its 16-element part
  for (const StoredTensor& s : gact.stored) parts += step.saved[s.saved].producer == 0 && s.form == "gact4";
  CHECK(parts == 2);
}

TEST_CASE("actnn: dropout masks at 1 bit an element, as ActNN's QDropout packs them") {
  const Run r = run("bert_base", 2, {"none", "actnn:L1", "actnn:L3"});
  std::uint64_t masks = 0;
  for (const SchemeStep& s : {r.schemes[1], r.schemes[2]})
    for (const StoredTensor& t : s.stored) {
      if (r.step.saved[t.saved].dtype != "bool") continue;
      ++masks;
      CHECK(t.form == "mask1");
      CHECK(t.bytes == (r.step.saved[t.saved].elements + 7) / 8);
    }
  CHECK(masks > 0);  // BERT's dropouts: embeddings, attention probabilities, each block's two
}

TEST_CASE("a layer's backward holds the full-precision copy it restores from codes, beside the gradients") {
  // conv → ReLU → conv on 2 × 4 × 8 × 8: ActNN keeps the second conv's input as 4-bit codes and its backward
  // dequantizes them to a whole fp32 tensor (dequantize_activation) — the peak left that copy out, so --max-batch
  // reported batches that do not fit
  const std::vector<Layer> layers = {
      {"conv1", Conv2d{.batch = 2, .in_ch = 3, .out_ch = 4, .in_h = 8, .in_w = 8, .kernel = 3, .pad = 1}},
      {"relu", Activation{.func = ActivationFunc::relu, .elements = 2 * 4 * 8 * 8}},
      {"conv2", Conv2d{.batch = 2, .in_ch = 4, .out_ch = 4, .in_h = 8, .in_w = 8, .kernel = 3, .pad = 1}}};
  const TrainingStep step = training_step(layers, Optimizer::sgd, Convention::exact);
  const SchemeStep none = apply_scheme(parse_scheme("none"), layers, step, 2);
  const SchemeStep actnn = apply_scheme(parse_scheme("actnn:L1"), layers, step, 2);
  // points: conv1, relu, conv2 forward; conv2, relu, conv1 backward
  REQUIRE(actnn.memory_curve.size() == 6);
  const auto growth = [](const SchemeStep& s, std::size_t point) {  // from the end of the forward
    return static_cast<std::int64_t>(s.memory_curve[point].bytes) - static_cast<std::int64_t>(s.memory_curve[2].bytes);
  };
  CHECK(actnn.memory_curve[3].layer == "conv2");
  CHECK(growth(actnn, 3) - growth(none, 3) == 2 * 4 * 8 * 8 * 4);
}
