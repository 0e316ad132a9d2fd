// Builder of hierarchical vision transformers (PVTv2, Twins-SVT): per stage an overlapping or plain patch
// embedding conv + LayerNorm, pre-norm blocks x + Attn(LN(x)), x + MLP(LN(x)) (MLP with optional ReLU and
// depthwise 3×3 conv), optional positional-encoding conv after the first block, optional stage/final norm,
// then mean pooling and a Linear classifier.
#include <algorithm>

#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

namespace {

// (sr_ratios, lsa_window and linear_sra are optional: the model's own attention)
constexpr std::string_view kKeys[] = {"image_size", "in_chans",  "num_classes",   "embed_dims",    "num_heads",
                                      "mlp_ratios", "depths",    "patch_kernels", "patch_strides", "patch_pads",
                                      "mlp_dwconv", "mlp_relu",  "peg",           "stage_norm",    "final_norm",
                                      "msa_stages", "sr_ratios", "lsa_window",    "linear_sra",    "native_attention"};

std::vector<Layer> build_hierarchical_vit(const ModelEntry& e, const ModelOptions& o) {
  constexpr std::size_t kStages = 4;
  const auto dims = e.uints("embed_dims", kStages), heads = e.uints("num_heads", kStages);
  const auto ratios = e.uints("mlp_ratios", kStages), depths = e.uints("depths", kStages, kMaxBlocks);
  const auto kernels = e.uints("patch_kernels", kStages), strides = e.uints("patch_strides", kStages);
  // stages numbered from 0: a stage beyond them kept nothing as MSA, silently
  const auto pads = e.uints("patch_pads", kStages), msa_stages = e.uints("msa_stages", 0, kStages - 1);
  const bool dwconv = e.flag("mlp_dwconv"), relu = e.flag("mlp_relu"), peg = e.flag("peg");
  const bool stage_norm = e.flag("stage_norm"), final_norm = e.flag("final_norm");
  // The model's own attention: spatial-reduction ratios (PVTv2, Twins' GSA), the locally-grouped window
  // (Twins' LSA) and the per-block pattern of variants (`native_attention`, cycled over each stage's blocks).
  const auto sr_ratios = e.has("sr_ratios") ? e.uints("sr_ratios", kStages) : std::vector<std::uint64_t>(kStages, 0);
  const std::uint64_t window = e.has("lsa_window") ? e.uint("lsa_window") : 0;
  const std::vector<AttentionVariant> native = native_variants(e, o);
  const bool uses_sra = o.native_attention
                            ? std::find(native.begin(), native.end(), AttentionVariant::sra) != native.end()
                            : o.attention.variant == AttentionVariant::sra;
  if (uses_sra && e.has("linear_sra") && e.flag("linear_sra"))
    throw Error("model '" + e.model() + "': linear SRA (keys pooled to 7×7) is not modelled; use pvt_v2_b2");
  std::uint64_t total_stride = 1;
  for (auto s : strides) {
    if (s == 0) throw Error("model '" + e.model() + "': patch strides must be positive");
    total_stride = checked_mul(total_stride, s);
  }
  const std::uint64_t size = image_size(e, o, total_stride);

  std::vector<Layer> layers;
  std::uint64_t h = size, w = size, in_ch = e.uint("in_chans");
  for (std::size_t s = 0; s < kStages; ++s) {
    const std::string stage = "stage" + std::to_string(s + 1);
    const std::uint64_t c = dims[s];
    Conv2d patch{.batch = o.batch,
                 .in_ch = in_ch,
                 .out_ch = c,
                 .in_h = h,
                 .in_w = w,
                 .kernel = kernels[s],
                 .stride = strides[s],
                 .pad = pads[s]};
    layers.push_back({stage + ".patch_embed", patch});
    h = patch.out_h();
    w = patch.out_w();
    in_ch = c;
    const std::uint64_t n = checked_mul(h, w), rows = checked_mul(o.batch, n), hidden = checked_mul(c, ratios[s]);
    layers.push_back({stage + ".patch_norm", LayerNorm{rows, c}});
    const bool keep_msa = std::find(msa_stages.begin(), msa_stages.end(), s) != msa_stages.end();
    for (std::uint64_t b = 0; b < depths[s]; ++b) {
      const std::string block = stage + ".block" + std::to_string(b);
      BlockParts parts{.attention =
                           block_attention(block_options(o, native, b), keep_msa && !o.native_attention, n, heads[s],
                                           head_width(e, c, heads[s]), c, {h, sr_ratios[s], window})};
      if (relu)
        parts.mlp_inner.push_back({block + ".relu", Activation{ActivationFunc::relu, checked_mul(rows, hidden)}});
      if (dwconv) parts.mlp_inner.push_back({block + ".dwconv", depthwise_3x3(o.batch, hidden, h, w)});
      append_block(layers, block, rows, c, hidden, parts);
      if (peg && b == 0) {
        layers.push_back({stage + ".pos_conv", depthwise_3x3(o.batch, c, h, w)});
        layers.push_back({stage + ".pos_residual", ResidualAdd{checked_mul(rows, c)}});
      }
    }
    if (stage_norm) layers.push_back({stage + ".norm", LayerNorm{rows, c}});
    if (s + 1 == kStages) {
      if (final_norm) layers.push_back({"norm", LayerNorm{rows, c}});
      layers.push_back({"pool", MeanPool{o.batch, n, c}});
      layers.push_back({"head", Linear{o.batch, c, e.uint("num_classes")}});
    }
  }
  return layers;
}

}  // namespace

constinit const ModelFamily kHierarchicalVitFamily{"hierarchical_vit", kKeys, build_hierarchical_vit};

}  // namespace ecosim::detail
