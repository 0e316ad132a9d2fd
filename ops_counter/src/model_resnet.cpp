// Builder of ResNets in torchvision's v1.5 layout: 7×7/2 stem conv, BN, ReLU, 3×3/2 max pool, four stages of
// basic (two 3×3 convs) or bottleneck (1×1, 3×3, 1×1 ×4 expansion, the stride on the 3×3) blocks, each conv
// followed by BN, a 1×1 strided conv + BN shortcut where the shape changes, the residual add and a ReLU, then
// global mean pooling and a Linear classifier. Convolutions carry no bias.
#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

namespace {

constexpr std::size_t kStages = 4;
constexpr std::uint64_t kBottleneckExpansion = 4;  // a bottleneck block's output = 4 × its width
constexpr std::uint64_t kTotalStride = 32;         // stem conv 2, max pool 2, stages 2-4 one 2 each

constexpr std::string_view kKeys[] = {"image_size", "in_chans", "num_classes", "depths", "widths", "bottleneck"};

struct Builder {
  std::vector<Layer>& layers;
  std::uint64_t batch, h, w;

  /// conv (no bias) + BN named "<name>" and "<norm>", reading `input` ("" = the layer before).
  void conv_bn(const std::string& name, const std::string& norm, std::uint64_t in_ch, std::uint64_t out_ch,
               std::uint64_t kernel, std::uint64_t stride, const std::string& input = "") {
    const Conv2d c{.batch = batch,
                   .in_ch = in_ch,
                   .out_ch = out_ch,
                   .in_h = h,
                   .in_w = w,
                   .kernel = kernel,
                   .stride = stride,
                   .pad = kernel / 2,
                   .bias = false};
    layers.push_back({name, c, input});
    h = c.out_h();
    w = c.out_w();
    layers.push_back({norm, BatchNorm2d{batch, out_ch, h, w}});
  }

  void relu(const std::string& name, std::uint64_t channels) {
    layers.push_back({name, Activation{ActivationFunc::relu, checked_product({batch, channels, h, w})}});
  }
};

std::vector<Layer> build_resnet(const ModelEntry& e, const ModelOptions& o) {
  const auto depths = e.uints("depths", kStages, kMaxBlocks), widths = e.uints("widths", kStages);
  const bool bottleneck = e.flag("bottleneck");
  const std::uint64_t size = image_size(e, o, kTotalStride);
  std::vector<Layer> layers;
  Builder b{layers, o.batch, size, size};
  const std::uint64_t stem = widths[0];
  b.conv_bn("stem.conv", "stem.bn", e.uint("in_chans"), stem, 7, 2);
  b.relu("stem.relu", stem);
  const MaxPool2d pool{o.batch, stem, b.h, b.w, 3, 2, 1};
  layers.push_back({"stem.maxpool", pool});
  b.h = pool.out_h();
  b.w = pool.out_w();

  std::uint64_t in_ch = stem;
  for (std::size_t s = 0; s < kStages; ++s) {
    const std::uint64_t width = widths[s], out_ch = bottleneck ? checked_mul(width, kBottleneckExpansion) : width;
    for (std::uint64_t i = 0; i < depths[s]; ++i) {
      const std::string block = "layer" + std::to_string(s + 1) + "." + std::to_string(i);
      const std::string block_input = layers.back().name;
      const std::uint64_t stride = (i == 0 && s > 0) ? 2 : 1, in_h = b.h, in_w = b.w;
      if (bottleneck) {
        b.conv_bn(block + ".conv1", block + ".bn1", in_ch, width, 1, 1);
        b.relu(block + ".relu1", width);
        b.conv_bn(block + ".conv2", block + ".bn2", width, width, 3, stride);  // v1.5: the stride on the 3×3
        b.relu(block + ".relu2", width);
        b.conv_bn(block + ".conv3", block + ".bn3", width, out_ch, 1, 1);
      } else {
        b.conv_bn(block + ".conv1", block + ".bn1", in_ch, width, 3, stride);
        b.relu(block + ".relu1", width);
        b.conv_bn(block + ".conv2", block + ".bn2", width, width, 3, 1);
      }
      if (stride != 1 || in_ch != out_ch) {  // the shortcut reads the block's input
        const std::uint64_t out_h = b.h, out_w = b.w;
        b.h = in_h;
        b.w = in_w;
        b.conv_bn(block + ".downsample.conv", block + ".downsample.bn", in_ch, out_ch, 1, stride, block_input);
        if (b.h != out_h || b.w != out_w) throw Error("model '" + e.model() + "': shortcut and block shapes differ");
      }
      layers.push_back({block + ".add", ResidualAdd{checked_product({o.batch, out_ch, b.h, b.w})}});
      b.relu(block + ".relu", out_ch);
      in_ch = out_ch;
    }
  }
  layers.push_back(
      {"pool", MeanPool{.batch = o.batch, .tokens = checked_mul(b.h, b.w), .width = in_ch, .pooling_module = true}});
  layers.push_back({"fc", Linear{o.batch, in_ch, e.uint("num_classes")}});
  return layers;
}

}  // namespace

constinit const ModelFamily kResnetFamily{"resnet", kKeys, build_resnet};

}  // namespace ecosim::detail
