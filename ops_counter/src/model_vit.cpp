// Builder of plain vision transformers (ViT, DeiT): patch embedding conv (kernel = stride = patch), class token
// (and DeiT's distillation token), position embedding add, pre-norm blocks with global attention, final
// LayerNorm over all tokens, and a Linear head on the class token (a second one on the distillation token).
#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

namespace {

constexpr std::string_view kKeys[] = {"image_size",         "in_chans",        "num_classes", "patch_size",
                                      "embed_dim",          "num_heads",       "depth",       "mlp_ratio",
                                      "distillation_token", "native_attention"};

std::vector<Layer> build_vit(const ModelEntry& e, const ModelOptions& o) {
  const std::uint64_t patch = e.uint("patch_size", 1024), c = e.uint("embed_dim"), heads = e.uint("num_heads");
  const std::uint64_t hidden = checked_mul(c, e.uint("mlp_ratio")), classes = e.uint("num_classes");
  const bool distilled = e.flag("distillation_token");
  const std::uint64_t size = image_size(e, o, patch);
  const Conv2d embed = patch_embedding(e, o, size, patch, c);
  const std::uint64_t n = checked_add(checked_mul(embed.out_h(), embed.out_w()), distilled ? 2 : 1);
  const std::uint64_t rows = checked_mul(o.batch, n);

  // the position table (a row per token) and the class (and distillation) tokens ride on the position add
  std::vector<Layer> layers{{"patch_embed", embed},
                            {.name = "pos_embed",
                             .op = ResidualAdd{checked_mul(rows, c)},
                             .table_parameters = checked_mul(checked_add(n, distilled ? 2 : 1), c)}};
  const std::vector<AttentionVariant> native = native_variants(e, o);
  const std::uint64_t depth = e.uint("depth", kMaxBlocks);
  for (std::uint64_t b = 0; b < depth; ++b)
    append_block(
        layers, "block" + std::to_string(b), rows, c, hidden,
        {.attention = block_attention(block_options(o, native, b), false, n, heads, head_width(e, c, heads), c, {})});
  layers.push_back({"norm", LayerNorm{rows, c}});
  layers.push_back({"head", Linear{o.batch, c, classes}});
  if (distilled)  // on the distillation token of the final norm's output, beside the head
    layers.push_back({.name = "head_dist", .op = Linear{o.batch, c, classes}, .input = "norm"});
  return layers;
}

}  // namespace

constinit const ModelFamily kVitFamily{"vit", kKeys, build_vit};

}  // namespace ecosim::detail
