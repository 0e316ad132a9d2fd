// Builder of Swin Transformers: 4×4 patch partition conv + LayerNorm, stages of pre-norm blocks with window
// attention (LSA over non-overlapping windows; shifted windows cost the same, plus the shift mask), relative
// position bias added to the window scores, patch merging (LayerNorm(4C) + Linear(4C, 2C) without bias)
// between stages, final LayerNorm, mean pooling and a Linear head. A stage whose grid is no larger than the
// window is one window of the grid (Swin's own rule: resolutions below 224 shrink stage 4's).
#include <algorithm>

#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

namespace {

constexpr std::size_t kMaxStages = 8;  // each stage halves the grid: 8 stages need a 512× total stride

constexpr std::string_view kKeys[] = {"image_size", "in_chans",  "num_classes", "patch_size", "embed_dim",
                                      "depths",     "num_heads", "lsa_window",  "mlp_ratio",  "native_attention"};

std::vector<Layer> build_swin(const ModelEntry& e, const ModelOptions& o) {
  const auto depths = e.uints("depths", 0, kMaxBlocks);
  if (depths.empty() || depths.size() > kMaxStages)
    throw Error("model '" + e.model() + "': 'depths' must list 1 to " + std::to_string(kMaxStages) + " stages");
  const auto heads = e.uints("num_heads", depths.size());
  const std::uint64_t patch = e.uint("patch_size", 1024), lsa_window = e.uint("lsa_window"),
                      ratio = e.uint("mlp_ratio");
  const std::uint64_t size = image_size(e, o, checked_mul(patch, std::uint64_t{1} << (depths.size() - 1)));
  const std::vector<AttentionVariant> native = native_variants(e, o);

  std::uint64_t c = e.uint("embed_dim");
  const Conv2d embed = patch_embedding(e, o, size, patch, c);
  std::uint64_t h = embed.out_h(), w = embed.out_w();
  std::vector<Layer> layers{{"patch_embed", embed}, {"patch_norm", LayerNorm{checked_mul(o.batch, h * w), c}}};
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const std::string stage = "stage" + std::to_string(s + 1);
    if (s > 0) {  // 2×2 neighbouring tokens concatenated (4C), normalised and projected to 2C
      h /= 2;
      w /= 2;
      const std::uint64_t merged_rows = checked_mul(o.batch, h * w);
      layers.push_back({stage + ".merge_norm", LayerNorm{merged_rows, checked_mul(4, c)}});
      layers.push_back({stage + ".merge", Linear{merged_rows, checked_mul(4, c), checked_mul(2, c), false}});
      c = checked_mul(2, c);
    }
    const std::uint64_t n = h * w, rows = checked_mul(o.batch, n);
    // a grid no larger than the window is one window of the grid's size, unshifted (Swin's own rule, as timm's)
    const std::uint64_t window = std::min({lsa_window, h, w});
    for (std::uint64_t b = 0; b < depths[s]; ++b) {
      const std::string block = stage + ".block" + std::to_string(b);
      BlockParts parts{.attention = block_attention(block_options(o, native, b), false, n, heads[s],
                                                    head_width(e, c, heads[s]), c, {h, 0, window})};
      if (parts.attention.variant == AttentionVariant::lsa) {  // one bias (and shift-mask) add per window score
        parts.attention.lsa_padded_proj = true;                // the window attention holds the output projection
        const std::uint64_t scores =
            checked_product({o.batch, heads[s], lsa_windows(parts.attention), window * window, window * window});
        parts.score_adds.push_back({.name = block + ".relative_position_bias",
                                    .op = ResidualAdd{scores},
                                    .table_parameters = checked_product({2 * window - 1, 2 * window - 1, heads[s]})});
        if (b % 2 == 1 && h > window) parts.score_adds.push_back({block + ".shift_mask", ResidualAdd{scores}});
      }
      append_block(layers, block, rows, c, checked_mul(c, ratio), parts);
    }
    if (s + 1 == depths.size()) {
      layers.push_back({"norm", LayerNorm{rows, c}});
      layers.push_back({"pool", MeanPool{.batch = o.batch, .tokens = n, .width = c, .pooling_module = true}});
      layers.push_back({"head", Linear{o.batch, c, e.uint("num_classes")}});
    }
  }
  return layers;
}

}  // namespace

constinit const ModelFamily kSwinFamily{"swin", kKeys, build_swin};

}  // namespace ecosim::detail
