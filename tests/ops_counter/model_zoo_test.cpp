// Whole-network counts: the EcoFormer paper's reference figures (DESIGN §3) and the stock PVTv2 GFLOPs
// computed from the zoo data and the formulas, the model zoo's structure, and its errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>

#include "../unique_temp_path.hpp"
#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"
#include "record_helpers.hpp"

using namespace ecosim;

namespace {

struct Totals {
  double muls_g, adds_g, energy_pj_g;
};

Totals count_model(const std::string& model, AttentionVariant v, bool attention_only) {
  ModelOptions o;
  o.attention.variant = v;
  OpCounter counter;
  for (const Layer& l : ModelZoo::builtin().build(model, o))
    if (!attention_only || is_attention(l)) emit(l, Convention::paper, counter);
  const OpCounts& t = counter.total();
  return {t.ops(OpKind::mul) / 1e9, t.ops(OpKind::add) / 1e9, TechTable::builtin_45nm().energy_pj(t) / 1e9};
}

/// True when x printed with `decimals` decimals reads `printed`.
bool rounds_to(double x, double printed, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::abs(std::round(x * scale) - std::round(printed * scale)) < 0.5;
}

}  // namespace

TEST_CASE("paper convention reproduces the EcoFormer reference figures at 224×224") {
  struct Case {
    const char* model;
    AttentionVariant variant;
    bool attention_only;
    double muls, adds, energy;
  };
  const Case cases[] = {
      {"pvt_v2_b0", AttentionVariant::msa, false, 2.02, 1.99, 9.3},
      {"pvt_v2_b0", AttentionVariant::ecoformer, false, 0.54, 0.56, 2.5},
      {"pvt_v2_b1", AttentionVariant::msa, false, 5.02, 5.00, 23.1},
      {"pvt_v2_b1", AttentionVariant::ecoformer, false, 2.03, 2.09, 9.4},
      {"pvt_v2_b0", AttentionVariant::msa, true, 1.58, 1.56, 7.26},
      {"pvt_v2_b0", AttentionVariant::ecoformer, true, 0.10, 0.13, 0.50},
  };
  for (const auto& c : cases) {
    const Totals t = count_model(c.model, c.variant, c.attention_only);
    INFO(c.model << " " << name(c.variant) << (c.attention_only ? " attention" : " model") << ": " << t.muls_g
                 << " G muls, " << t.adds_g << " G adds, " << t.energy_pj_g << " G pJ");
    CHECK(rounds_to(t.muls_g, c.muls, 2));
    CHECK(rounds_to(t.adds_g, c.adds, 2));
    CHECK(rounds_to(t.energy_pj_g, c.energy, c.attention_only ? 2 : 1));
  }
}

TEST_CASE("paper energy is 3.7 pJ per mul + 0.9 pJ per add") {
  const Totals t = count_model("pvt_v2_b0", AttentionVariant::msa, false);
  CHECK(t.energy_pj_g == Approx(3.7 * t.muls_g + 0.9 * t.adds_g).epsilon(1e-12));
}

TEST_CASE("EcoFormer models keep MSA in the last stage") {
  ModelOptions o;
  o.attention.variant = AttentionVariant::ecoformer;
  for (const char* model : {"pvt_v2_b0", "twins_svt_s"})
    for (const Layer& l : ModelZoo::builtin().build(model, o))
      if (is_attention(l)) {
        const auto& a = std::get<AttentionConfig>(l.op);
        const bool last_stage = l.name.starts_with("stage4");
        CHECK(a.variant == (last_stage ? AttentionVariant::msa : AttentionVariant::ecoformer));
      }
}

TEST_CASE("PVTv2 structure: token grids 56², 28², 14², 7² — head width = embedding / heads") {
  ModelOptions o;
  std::vector<std::uint64_t> seqs;
  for (const Layer& l : ModelZoo::builtin().build("pvt_v2_b2", o))
    if (is_attention(l)) {
      const auto& a = std::get<AttentionConfig>(l.op);
      CHECK(a.head_dim == 64);  // b1–b5: 64/1, 128/2, 320/5, 512/8
      seqs.push_back(a.seq);
    }
  REQUIRE(seqs.size() == 3 + 4 + 6 + 3);
  CHECK(seqs.front() == 56 * 56);
  CHECK(seqs[3] == 28 * 28);
  CHECK(seqs[7] == 14 * 14);
  CHECK(seqs.back() == 7 * 7);
}

TEST_CASE("deeper and wider PVTv2 models cost more — b2_li adds only ReLUs") {
  auto muls = [](const char* m) { return count_model(m, AttentionVariant::msa, false).muls_g; };
  CHECK(muls("pvt_v2_b0") < muls("pvt_v2_b1"));
  CHECK(muls("pvt_v2_b1") < muls("pvt_v2_b2"));
  CHECK(muls("pvt_v2_b2") < muls("pvt_v2_b3"));
  CHECK(muls("pvt_v2_b3") < muls("pvt_v2_b4"));
  CHECK(muls("pvt_v2_b2_li") > muls("pvt_v2_b2"));  // ReLU counts one MAC per element in the paper convention
}

TEST_CASE("LRA encoders: sequence length parameter and the dual retrieval encoder") {
  ModelOptions o;
  o.attention.variant = AttentionVariant::msa;
  OpCounter text, retrieval, shorter;
  for (const Layer& l : ModelZoo::builtin().build("lra_text", o)) emit(l, Convention::paper, text);
  for (const Layer& l : ModelZoo::builtin().build("lra_retrieval", o)) emit(l, Convention::paper, retrieval);
  o.seq_len = 1024;
  for (const Layer& l : ModelZoo::builtin().build("lra_text", o)) emit(l, Convention::paper, shorter);
  CHECK(retrieval.total().ops(OpKind::mul) > 2 * text.total().ops(OpKind::mul) - 1000000);
  // attention dominates at 4096 tokens: a quarter of the tokens costs well under a quarter
  CHECK(shorter.total().ops(OpKind::mul) * 4 < text.total().ops(OpKind::mul));
}

TEST_CASE("stock PVTv2 (spatial-reduction attention) reproduces the published GFLOPs of b0–b5") {
  // PVTv2 paper (Wang et al., 2022), ImageNet table, 224×224: 0.6 / 2.1 / 4.0 / 6.9 / 10.1 / 11.8 GFLOPs
  // (multiply-accumulates). The paper convention counts a MAC as one mul and one add.
  const std::pair<const char*, double> published[] = {{"pvt_v2_b0", 0.6}, {"pvt_v2_b1", 2.1},  {"pvt_v2_b2", 4.0},
                                                      {"pvt_v2_b3", 6.9}, {"pvt_v2_b4", 10.1}, {"pvt_v2_b5", 11.8}};
  for (const auto& [model, gflops] : published) {
    const Totals t = count_model(model, AttentionVariant::sra, false);
    INFO(model << ": " << t.muls_g << " G muls");
    CHECK(rounds_to(t.muls_g, gflops, 1));
  }
  // SRA in the first stage: 3136 queries over 49 reduced keys, not 3136.
  ModelOptions o;
  o.attention.variant = AttentionVariant::sra;
  const std::vector<Layer> layers = ModelZoo::builtin().build("pvt_v2_b0", o);
  const auto attn =
      std::find_if(layers.begin(), layers.end(), [](const Layer& l) { return l.name == "stage1.block0.attn"; });
  REQUIRE(attn != layers.end());
  const auto& a = std::get<AttentionConfig>(attn->op);
  CHECK(a.sr_ratio == 8);
  CHECK(sra_keys(a) == 49);
}

TEST_CASE("each model's own attention: Twins-SVT S/B/L reproduce the published GFLOPs — PVTv2's is SRA") {
  // Twins paper (Chu et al., 2021), ImageNet table, 224×224: SVT-S 2.9, SVT-B 8.6, SVT-L 15.1 GFLOPs
  // (multiply-accumulates). Blocks alternate locally-grouped (7×7 windows) and global sub-sampled attention.
  ModelOptions o;
  o.native_attention = true;
  const std::pair<const char*, double> published[] = {
      {"twins_svt_s", 2.9}, {"twins_svt_b", 8.6}, {"twins_svt_l", 15.1}};
  for (const auto& [model, gflops] : published) {
    OpCounter counter;
    for (const Layer& l : ModelZoo::builtin().build(model, o)) emit(l, Convention::paper, counter);
    const double muls_g = counter.total().ops(OpKind::mul) / 1e9;
    INFO(model << ": " << muls_g << " G muls");
    CHECK(rounds_to(muls_g, gflops, 1));
  }
  const std::vector<Layer> twins = ModelZoo::builtin().build("twins_svt_s", o);
  const auto attention_of = [&](const std::string& layer) {
    const auto it = std::find_if(twins.begin(), twins.end(), [&](const Layer& l) { return l.name == layer; });
    REQUIRE(it != twins.end());
    return std::get<AttentionConfig>(it->op);
  };
  CHECK(attention_of("stage1.block0.attn").variant == AttentionVariant::lsa);
  CHECK(lsa_windows(attention_of("stage1.block0.attn")) == 64);  // 56×56 tokens in 7×7 windows
  CHECK(attention_of("stage1.block1.attn").variant == AttentionVariant::sra);
  CHECK(sra_keys(attention_of("stage1.block1.attn")) == 49);
  CHECK(attention_of("stage3.block9.attn").variant == AttentionVariant::sra);

  ModelOptions sra;
  sra.attention.variant = AttentionVariant::sra;
  for (const char* model : {"pvt_v2_b0", "pvt_v2_b3"})
    CHECK(count_model(model, AttentionVariant::sra, false).muls_g == [&] {
      OpCounter counter;
      for (const Layer& l : ModelZoo::builtin().build(model, o)) emit(l, Convention::paper, counter);
      return counter.total().ops(OpKind::mul) / 1e9;
    }());
}

TEST_CASE("model zoo errors name what is wrong") {
  ModelOptions o;
  CHECK_THROWS_WITH(ModelZoo::builtin().build("pvt_v3", o), Catch::Contains("valid: ") && Catch::Contains("pvt_v2_b0"));
  o.resolution = 2;
  CHECK_THROWS_WITH(ModelZoo::builtin().build("pvt_v2_b0", o), Catch::Contains("multiple of 32"));
  o.resolution = 100;
  CHECK_THROWS_WITH(ModelZoo::builtin().build("twins_svt_s", o), Catch::Contains("multiple of 32"));
  o.resolution = 64;  // stage 3 has 2×2 tokens, fewer than the 25 anchors
  o.attention.variant = AttentionVariant::ecoformer;
  CHECK_THROWS_WITH(ModelZoo::builtin().build("pvt_v2_b0", o), Catch::Contains("support"));
  CHECK_THROWS_WITH(ModelZoo::parse(R"({"m": {"extends": "m"}})", "t").build("m", {}), Catch::Contains("circular"));
  CHECK_THROWS_WITH(ModelZoo::parse(R"({"m": {"family": "lra"}})", "t").build("m", {}), Catch::Contains("seq_len"));
  o = {};
  o.attention.variant = AttentionVariant::sra;  // only the vision models declare spatial-reduction ratios
  CHECK_THROWS_WITH(ModelZoo::builtin().build("lra_text", o), Catch::Contains("sr_ratios"));
  CHECK_THROWS_WITH(ModelZoo::builtin().build("pvt_v2_b2_li", o), Catch::Contains("linear SRA"));
  o.attention.variant = AttentionVariant::lsa;  // only Twins declares a locally-grouped window
  CHECK_THROWS_WITH(ModelZoo::builtin().build("pvt_v2_b0", o), Catch::Contains("lsa_window"));
  ModelOptions native;
  native.native_attention = true;
  CHECK_THROWS_WITH(
      ModelZoo::parse(R"({"m": {"family": "lra", "vocab_size": 16, "seq_len": 8, "embed_dim": 4, "num_heads": 1,
                                            "head_dim": 4, "ffn_hidden": 4, "layers": 1, "dual": false,
                                            "classifier_hidden": 4, "num_classes": 2, "native_attention": []}})",
                      "t")
          .build("m", native),
      Catch::Contains("native_attention"));
}

TEST_CASE("hostile zoo files are errors and bound the work of a build") {
  // An LRA encoder from the zoo's own lra_text values, with `layers` set by the test.
  auto lra = [](const std::string& layers) {
    return ModelZoo::parse(
        R"({"m": {"family": "lra", "vocab_size": 16, "seq_len": 8, "embed_dim": 4, "num_heads": 1, "head_dim": 4,
                                    "ffn_hidden": 4, "layers": )" +
            layers + R"(, "dual": false,
                                    "classifier_hidden": 4, "num_classes": 2}})",
        "t");
  };
  // Per encoder layer: norm1, attn, residual1, norm2, fc1, gelu, fc2, residual2; around them pos_embed, norm,
  // pool and three classifier layers.
  CHECK(lra("256").build("m", {}).size() == 256 * 8 + 6);
  CHECK_THROWS_WITH(lra("257").build("m", {}), Catch::Contains("'layers' must be at most 256"));
  // PVTv2-B0's values with the first stage's depth set by the test.
  auto vision = [](const std::string& depth) {
    return ModelZoo::parse(R"({"v": {"family": "hierarchical_vit", "image_size": 224, "in_chans": 3,
      "num_classes": 1000, "embed_dims": [32, 64, 160, 256], "num_heads": [1, 2, 5, 8], "mlp_ratios": [8, 8, 4, 4],
      "depths": [)" + depth + R"(, 2, 2, 2], "patch_kernels": [7, 3, 3, 3], "patch_strides": [4, 2, 2, 2],
      "patch_pads": [3, 1, 1, 1], "mlp_dwconv": true, "mlp_relu": false, "peg": false, "stage_norm": true,
      "final_norm": false, "msa_stages": [3]}})",
                           "t");
  };
  CHECK(vision("2").build("v", {}).size() == ModelZoo::builtin().build("pvt_v2_b0", {}).size());
  CHECK_NOTHROW(vision("256").build("v", {}));
  CHECK_THROWS_WITH(vision("257").build("v", {}), Catch::Contains("'depths' must hold integers up to 256"));
  // MSA stages are numbered 0..3: a stage 4 (counted from 1) kept nothing as MSA, silently
  const ModelZoo stage_four =
      ModelZoo::parse(R"({"s": {"extends": "pvt_v2_b0", "msa_stages": [4]}})", "t").overlaying(ModelZoo::builtin());
  CHECK_THROWS_WITH(stage_four.build("s", {}), Catch::Contains("'msa_stages' must hold integers up to 3"));
  CHECK_THROWS_WITH(
      ModelZoo::parse(R"({"m": {"family": 7}})", "t").build("m", {}),
      Catch::Contains("'family' must be hierarchical_vit, vit, swin, lra, encoder, decoder, resnet or vgg"));
  const ModelZoo unnamed = ModelZoo::parse(R"({"": {"family": "lra"}, "_note": "x"})", "t");
  CHECK(unnamed.names().empty());  // neither the empty key nor a comment is a model
  CHECK_THROWS_WITH(unnamed.build("", {}), Catch::Contains("unknown model ''"));
  CHECK_THROWS_WITH(ModelZoo::parse(R"({"m": {}, "m": {}})", "zoo.json"),
                    Catch::Contains("zoo.json:1: duplicate key 'm'"));
}

namespace {

/// Paper-convention MACs (adds: one per MAC, score scaling not included) of the model under its own attention.
double native_macs_g(const std::string& model, const ModelOptions& base = {}) {
  ModelOptions o = base;
  o.native_attention = true;
  OpCounter counter;
  for (const Layer& l : ModelZoo::builtin().build(model, o)) emit(l, Convention::paper, counter);
  return counter.total().ops(OpKind::mul) / 1e9;
}

}  // namespace

TEST_CASE("ViT and DeiT reproduce their published GMACs at 224², 197 tokens") {
  // DeiT paper (Touvron et al., 2021) and ViT (Dosovitskiy et al., 2021): DeiT-Ti 1.3, DeiT-S 4.6, DeiT-B 17.6,
  // ViT-L/16 61.6 GFLOPs (multiply-accumulates).
  const std::pair<const char*, double> published[] = {
      {"deit_tiny", 1.3}, {"deit_small", 4.6}, {"deit_base", 17.6}, {"vit_large_16", 61.6}};
  for (const auto& [model, gmacs] : published) {
    INFO(model << ": " << native_macs_g(model) << " G muls");
    CHECK(rounds_to(native_macs_g(model), gmacs, 1));
  }
  ModelOptions o;
  for (const Layer& l : ModelZoo::builtin().build("deit_base", o))
    if (is_attention(l)) {
      CHECK(std::get<AttentionConfig>(l.op).seq == 14 * 14 + 1);  // patches + class token
      CHECK(std::get<AttentionConfig>(l.op).head_dim == 64);
    }
  const ModelZoo distilled = ModelZoo::parse(R"({"d": {"extends": "t", "distillation_token": true},
    "t": {"family": "vit", "image_size": 224, "in_chans": 3, "num_classes": 1000, "patch_size": 16, "embed_dim": 192,
          "num_heads": 3, "depth": 12, "mlp_ratio": 4, "distillation_token": false}})",
                                             "t");
  CHECK(std::get<AttentionConfig>(distilled.build("d", o)[3].op).seq == 198);
  CHECK(distilled.build("d", o).back().name == "head_dist");
}

TEST_CASE("Swin-T and Swin-S: window attention, and the published GMACs under Swin's own counter") {
  // Swin paper (Liu et al., 2021): Swin-T 4.5, Swin-S 8.7 GFLOPs (multiply-accumulates), counted by the official
  // repository's flops(): LayerNorm 1 MAC per element (mmcv: 2), no conv bias, no score scaling, no pooling.
  auto swin_counter_macs_g = [](const std::string& model) {
    ModelOptions o;
    o.native_attention = true;
    double macs = 0;
    for (const Layer& l : ModelZoo::builtin().build(model, o)) {
      OpCounter counter;
      emit(l, Convention::paper, counter);
      double layer_macs = counter.total().ops(OpKind::add);  // one add per MAC; scaling is muls only
      if (const auto* n = std::get_if<LayerNorm>(&l.op)) layer_macs = static_cast<double>(n->rows * n->width);
      if (const auto* c = std::get_if<Conv2d>(&l.op))
        layer_macs -= static_cast<double>(c->batch * c->out_ch * c->out_h() * c->out_w());
      if (std::holds_alternative<MeanPool>(l.op)) layer_macs = 0;
      macs += layer_macs;
    }
    return macs / 1e9;
  };
  INFO("Swin-T " << swin_counter_macs_g("swin_tiny") << ", Swin-S " << swin_counter_macs_g("swin_small"));
  CHECK(rounds_to(swin_counter_macs_g("swin_tiny"), 4.5, 1));
  CHECK(rounds_to(swin_counter_macs_g("swin_small"), 8.7, 1));
  CHECK(rounds_to(native_macs_g("swin_tiny"), 4.5, 1));  // the mmcv rules agree for Swin-T

  ModelOptions o;
  o.native_attention = true;
  const std::vector<Layer> swin = ModelZoo::builtin().build("swin_tiny", o);
  std::vector<std::uint64_t> windows;
  for (const Layer& l : swin)
    if (is_attention(l)) {
      CHECK(std::get<AttentionConfig>(l.op).head_dim == 32);  // 96/3, 192/6, 384/12, 768/24
      windows.push_back(lsa_windows(std::get<AttentionConfig>(l.op)));
    }
  CHECK(windows == std::vector<std::uint64_t>{64, 64, 16, 16, 4, 4, 4, 4, 4, 4, 1, 1});  // 56², 28², 14², 7² in 7²
  // Shifted blocks add the shift mask, except in stage 4, whose single window is not shifted.
  const auto named = [&](const std::string& n) {
    return std::count_if(swin.begin(), swin.end(), [&](const Layer& l) { return l.name == n; });
  };
  CHECK(named("stage1.block1.shift_mask") == 1);
  CHECK(named("stage1.block0.shift_mask") == 0);
  CHECK(named("stage4.block1.shift_mask") == 0);
  CHECK(named("stage2.merge") == 1);

  // At 160 px stage 4's grid is 5×5, smaller than the 7×7 window: one 5×5 window (Swin's own rule, as timm's),
  // not 49 zero-padded tokens. Paper MACs of its attention: qkv 25·768·2304, proj 25·768², scores and context
  // 2·25²·768, the scale 24·25² (and the relative-position bias adds, in their own row).
  o.resolution = 160;
  const std::vector<Layer> small = ModelZoo::builtin().build("swin_tiny", o);
  for (const Layer& l : small)
    if (l.name == "stage4.block0.attn") {
      const AttentionConfig& a = std::get<AttentionConfig>(l.op);
      CHECK(lsa_windows(a) == 1);
      CHECK(test::count(l, Convention::paper).ops(OpKind::mul) ==
            25 * 768 * 2304 + 25 * 768 * 768 + 2 * 25 * 25 * 768 + 24 * 25 * 25);
    }
  CHECK(std::count_if(small.begin(), small.end(), [](const Layer& l) { return l.name == "stage4.block0.attn"; }) == 1);
}

TEST_CASE("an nn.AdaptiveAvgPool module counts its input elements in the paper convention, a tensor's mean none") {
  // mmcv's pooling hook sees ResNet's and Swin's pool modules; PVT's x.mean() it does not
  const auto pool_muls = [](const std::string& model) {
    for (const Layer& l : ModelZoo::builtin().build(model, ModelOptions{}))
      if (l.name == "pool") return test::count(l, Convention::paper).ops(OpKind::mul);
    FAIL("no pool layer in " << model);
    return std::uint64_t{0};
  };
  CHECK(pool_muls("resnet50") == 2048 * 7 * 7);
  CHECK(pool_muls("swin_tiny") == 49 * 768);
  CHECK(pool_muls("pvt_v2_b0") == 0);
}

TEST_CASE("BERT-base and GPT-2 small: hand-computed MACs, sequence length, causal attention, LM head") {
  // Per layer of n tokens of width c with FFN width f: q, k, v, out projections 4·n·c², FFN 2·n·c·f, two
  // LayerNorms 2·(2·n·c); and, a term of its own, the attention scores and context: 2·n²·c with every score
  // computed, 2·c·n(n+1)/2 when causal (the lower triangle only).
  const double c = 768, f = 3072, layers = 12, vocab = 50257;
  auto dense_layer_macs = [&](double n) { return 4 * n * c * c + 2 * n * c * f + 4 * n * c; };
  auto attention_layer_macs = [&](double n) { return 2 * n * n * c; };
  auto causal_attention_layer_macs = [&](double n) { return 2 * c * n * (n + 1) / 2; };
  // BERT-base: the layers and the embedding LayerNorm 2·n·c; no LM head.
  auto bert_macs = [&](double n) { return layers * (dense_layer_macs(n) + attention_layer_macs(n)) + 2 * n * c; };
  // GPT-2 small: the same layers in pre-norm form with causal attention, a final LayerNorm 2·n·c instead of the
  // embedding LayerNorm, and the LM head n·c·vocab, tied to the token embedding (tying shares weights, not work).
  auto gpt2_macs = [&](double n) {
    return layers * (dense_layer_macs(n) + causal_attention_layer_macs(n)) + 2 * n * c + n * c * vocab;
  };
  ModelOptions o;
  o.native_attention = true;
  auto paper_adds = [&](const ModelZoo& zoo, const std::string& model, const ModelOptions& options) {
    OpCounter counter;
    for (const Layer& l : zoo.build(model, options)) emit(l, Convention::paper, counter);
    return static_cast<double>(counter.total().ops(OpKind::add));
  };
  const ModelZoo zoo = ModelZoo::builtin();
  CHECK(paper_adds(zoo, "bert_base", o) == bert_macs(512));
  o.seq_len = 128;
  CHECK(paper_adds(zoo, "bert_base", o) == bert_macs(128));
  o.seq_len = 1024;
  CHECK(paper_adds(zoo, "gpt2_small", o) == gpt2_macs(1024));
  o.seq_len = 0;  // GPT-2's own context, 1024 tokens
  CHECK(paper_adds(zoo, "gpt2_small", o) == gpt2_macs(1024));
  // past their learned positions (BERT's 512, GPT-2's 1024) there is no such model: refused, as a decoder's are
  o.seq_len = 1025;
  CHECK_THROWS_WITH(zoo.build("gpt2_small", o), Catch::Contains("exceeds its 1024 learned positions"));
  o.seq_len = 513;
  CHECK_THROWS_WITH(zoo.build("bert_base", o), Catch::Contains("exceeds its 512 learned positions"));
  o.seq_len = 4097;  // the Long Range Arena encoders' tables too (4,096 positions; a longer sequence was counted)
  CHECK_THROWS_WITH(zoo.build("lra_text", o), Catch::Contains("exceeds its 4096 learned positions"));
  o.seq_len = 0;
  const ModelZoo headless =
      ModelZoo::parse(R"({"g": {"extends": "gpt2_small", "lm_head": false}})", "t").overlaying(zoo);
  CHECK(paper_adds(zoo, "gpt2_small", o) - paper_adds(headless, "g", o) == 1024 * c * vocab);
  const std::vector<Layer> gpt2 = zoo.build("gpt2_small", o);
  REQUIRE(gpt2.back().name == "lm_head");
  const auto& head = std::get<Linear>(gpt2.back().op);
  CHECK((head.tokens == 1024 && head.in == 768 && head.out == 50257 && !head.bias));
  // Made bidirectional, GPT-2 computes all n² scores.
  const ModelZoo bidirectional =
      ModelZoo::parse(R"({"g": {"extends": "gpt2_small", "causal": false}})", "t").overlaying(zoo);
  CHECK(paper_adds(bidirectional, "g", o) ==
        gpt2_macs(1024) + layers * (attention_layer_macs(1024) - causal_attention_layer_macs(1024)));
  // Exactly, every (batch, head) skips the n² − n(n+1)/2 masked pairs: their d−1 score adds, 2 softmax adds and
  // d context adds each; there is no mask add.
  auto exact_adds = [](const ModelZoo& z, const std::string& model) {
    OpCounter counter;
    ModelOptions native;
    native.native_attention = true;
    for (const Layer& l : z.build(model, native)) emit(l, Convention::exact, counter);
    return counter.total().ops(OpKind::add);
  };
  const std::uint64_t heads = 12, d = 64, tokens = 1024, masked = tokens * tokens - tokens * (tokens + 1) / 2;
  CHECK(exact_adds(bidirectional, "g") - exact_adds(zoo, "gpt2_small") == 12 * heads * masked * (2 * d + 1));
  o = {};
  for (const Layer& l : zoo.build("gpt2_small", o)) CHECK(l.name.find("causal_mask") == std::string::npos);
  o.attention.variant = AttentionVariant::linformer;  // no causal form: refused, not silently bidirectional
  CHECK_THROWS_WITH(zoo.build("gpt2_small", o),
                    Catch::Contains("model 'gpt2_small': ") && Catch::Contains("has no causal form"));
  CHECK_NOTHROW(bidirectional.build("g", o));
  for (AttentionVariant v : {AttentionVariant::ecoformer, AttentionVariant::performer, AttentionVariant::reformer}) {
    o.attention.variant = v;  // their causal forms: prefix sums, the within-bucket triangle
    for (const Layer& l : zoo.build("gpt2_small", o))
      if (const auto* a = std::get_if<AttentionConfig>(&l.op)) CHECK(a->causal);
  }
  // A causal EcoFormer's anchors are fixed beforehand, not drawn from the keys: its 25 serve 16 tokens (as a
  // decoder's do); the bidirectional BERT's are drawn from its 16 tokens, too few
  o.attention.variant = AttentionVariant::ecoformer;
  o.seq_len = 16;
  CHECK_NOTHROW(zoo.build("gpt2_small", o));
  CHECK_THROWS_WITH(zoo.build("bert_base", o), Catch::Contains("support samples = 25 is outside 1..16"));
  o.seq_len = 0;
  o.attention.variant = AttentionVariant::lsa;  // no token grid in a sequence model
  CHECK_THROWS_WITH(zoo.build("bert_base", o), Catch::Contains("lsa_window"));
  o = {};
  o.resolution = 224;
  CHECK_THROWS_WITH(zoo.build("bert_base", o), Catch::Contains("a resolution does not apply"));
  o = {};
  o.seq_len = 128;
  CHECK_THROWS_WITH(zoo.build("swin_tiny", o), Catch::Contains("a sequence length does not apply"));
  CHECK_THROWS_WITH(zoo.build("deit_tiny", o), Catch::Contains("a sequence length does not apply"));
}

TEST_CASE("a user zoo file: models over the built-in ones, extending them — bad files are errors") {
  const std::filesystem::path path = unique_temp_path("user_zoo", ".json");
  { std::ofstream(path) << R"({"b0_deep": {"extends": "pvt_v2_b0", "depths": [2, 2, 3, 2]}})"; }
  const ModelZoo zoo = ModelZoo::load(path.string()).overlaying(ModelZoo::builtin());
  std::filesystem::remove(path);
  auto muls = [&](const std::string& model) {
    OpCounter counter;
    for (const Layer& l : zoo.build(model, {})) emit(l, Convention::paper, counter);
    return counter.total().ops(OpKind::mul);
  };
  // One more MSA block in stage 3 of PVTv2-B0: 14² tokens of 160, 5 heads, MLP 640 with a depthwise 3×3 conv.
  const std::uint64_t n = 196, c = 160, hidden = 640;
  const std::uint64_t block = 2 * (2 * n * c)                    // norm1, norm2
                              + n * c * 3 * c + n * c * c        // qkv, proj
                              + 2 * n * n * c + 5 * n * n        // scores and context, scaling
                              + n * c * hidden + n * hidden * c  // fc1, fc2
                              + 9 * hidden * n + hidden * n;     // dwconv and its bias
  CHECK(muls("b0_deep") - muls("pvt_v2_b0") == block);
  CHECK(zoo.names().size() == ModelZoo::builtin().names().size() + 1);

  CHECK_THROWS_WITH(ModelZoo::load(path.string()), Catch::Contains(path.string()));  // removed above
  CHECK_THROWS_WITH(ModelZoo::parse(R"({"m": {"extends": "pvt_v2_b0",)", "f.json"), Catch::Contains("f.json"));
  CHECK_THROWS_WITH(
      ModelZoo::parse(R"({"m": {"family": "mobilenet"}})", "f.json").build("m", {}),
      Catch::Contains("'family' must be hierarchical_vit, vit, swin, lra, encoder, decoder, resnet or vgg"));
  CHECK_THROWS_WITH(ModelZoo::parse(R"({"m": {"extends": "deit_tiny", "num_heads": 5}})", "f.json")
                        .overlaying(ModelZoo::builtin())
                        .build("m", {}),
                    Catch::Contains("not divisible by heads"));
  CHECK_THROWS_WITH(ModelZoo::parse(R"({"m": {"extends": "swin_tiny", "depths": []}})", "f.json")
                        .overlaying(ModelZoo::builtin())
                        .build("m", {}),
                    Catch::Contains("1 to 8 stages"));
}

TEST_CASE("a zoo entry refuses a key its family does not have, naming the file, the model and the key") {
  const ModelZoo builtin = ModelZoo::builtin();  // (which checks every built-in entry the same way)
  auto error_of = [&](const std::string& text) -> std::string {
    try {
      (void)ModelZoo::parse(text, "my_zoo.json").overlaying(builtin);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  // Issue 18's examples, which counted exactly as GPT-2 small: keys of other architectures, and misspellings.
  CHECK(error_of(R"({"m": {"extends": "gpt2_small", "num_kv_heads": 8, "norm": "rmsnorm", "activation": "swiglu"}})")
            .starts_with("my_zoo.json: m.activation: unknown key for family 'encoder' (known: "));
  for (const char* key : {"num_kv_heads", "norm", "activation"})
    CHECK_THAT(error_of(R"({"m": {"extends": "gpt2_small", ")" + std::string(key) + R"(": 1}})"),
               Catch::StartsWith("my_zoo.json: m." + std::string(key) + ": unknown key"));
  CHECK_THAT(error_of(R"({"gpt2_long": {"extends": "gpt2_small", "seqlen": 32768, "num_layers": 48}})"),
             Catch::StartsWith("my_zoo.json: gpt2_long.num_layers: unknown key for family 'encoder' (known: ") &&
                 Catch::Contains("layers"));
  CHECK(error_of(R"({"gpt2_long": {"extends": "gpt2_small", "seqlen": 32768}})") ==
        "my_zoo.json: gpt2_long.seqlen: unknown key for family 'encoder' (did you mean 'seq_len'?)");
  // A key of another family: `depths` belongs to Swin and the hierarchical models, not to ViT.
  CHECK_THAT(error_of(R"({"m": {"extends": "deit_tiny", "depths": [2, 2]}})"),
             Catch::StartsWith("my_zoo.json: m.depths: unknown key for family 'vit' (did you mean 'depth'?)"));
  // The entry that gives the key is blamed, wherever it is in the extends chain; refused even when not built.
  CHECK_THAT(error_of(R"({"a": {"extends": "b"}, "b": {"extends": "bert_base", "hiden": 4}, "c": {"extends": "a"}})"),
             Catch::StartsWith("my_zoo.json: b.hiden: unknown key"));
  // Comments (keys starting with '_') stay allowed, in the file and in entries.
  CHECK(error_of(R"({"_note": "x", "m": {"extends": "deit_tiny", "_why": "a comment"}})") == "no error");
  // A zoo that is only parsed refuses the key when its model is built.
  CHECK_THROWS_WITH(
      ModelZoo::parse(R"({"m": {"family": "lra", "vocab_size": 16, "seq_len": 8, "embed_dim": 4, "num_heads": 1,
                                            "head_dim": 4, "ffn_hidden": 4, "layers": 1, "dual": false,
                                            "classifier_hidden": 4, "num_classes": 2, "colour": 1}})",
                      "t.json")
          .build("m", {}),
      Catch::StartsWith("t.json: m.colour: unknown key"));
}
