// Builder of VGG networks in torchvision's layout (no batch norm): five stages of 3×3 convs (padding 1, bias)
// each followed by ReLU, a 2×2/2 max pool closing each stage, the adaptive average pool to 7×7 (a pooling of
// (size/224)² windows, run even when it is the identity at 224), and the classifier Linear–ReLU–Linear–ReLU–
// Linear, with a dropout after each hidden ReLU when `dropout` (training only: the identity in inference).
#include "ecosim/ops_counter/checked.hpp"
#include "model_entry.hpp"

namespace ecosim::detail {

namespace {

constexpr std::size_t kStages = 5;
constexpr std::uint64_t kPooledSide = 7;     // the adaptive average pool's output side
constexpr std::uint64_t kTotalStride = 224;  // 5 max pools (32) times the pooled side 7: an integral pool window

constexpr std::string_view kKeys[] = {"image_size",   "in_chans",          "num_classes", "stage_convs",
                                      "stage_widths", "classifier_hidden", "dropout"};

std::vector<Layer> build_vgg(const ModelEntry& e, const ModelOptions& o) {
  const auto convs = e.uints("stage_convs", kStages, kMaxBlocks), widths = e.uints("stage_widths", kStages);
  const std::uint64_t size = image_size(e, o, kTotalStride), hidden = e.uint("classifier_hidden");
  std::vector<Layer> layers;
  std::uint64_t side = size, in_ch = e.uint("in_chans");
  for (std::size_t s = 0; s < kStages; ++s) {
    for (std::uint64_t i = 0; i < convs[s]; ++i) {
      const std::string conv = "features.stage" + std::to_string(s + 1) + ".conv" + std::to_string(i);
      layers.push_back({conv, Conv2d{.batch = o.batch,
                                     .in_ch = in_ch,
                                     .out_ch = widths[s],
                                     .in_h = side,
                                     .in_w = side,
                                     .kernel = 3,
                                     .stride = 1,
                                     .pad = 1}});
      layers.push_back(
          {conv + ".relu", Activation{ActivationFunc::relu, checked_product({o.batch, widths[s], side, side})}});
      in_ch = widths[s];
    }
    const MaxPool2d pool{o.batch, in_ch, side, side, 2, 2, 0};
    layers.push_back({"features.stage" + std::to_string(s + 1) + ".maxpool", pool});
    side = pool.out_h();
  }
  const std::uint64_t window = side / kPooledSide;
  layers.push_back({"avgpool", AvgPool2d{o.batch, in_ch, side, side, window, window}});
  const std::uint64_t features = checked_product({in_ch, kPooledSide, kPooledSide});
  const bool dropout = e.has("dropout") && e.flag("dropout");  // training: after each hidden ReLU
  for (const char* i : {"1", "2"}) {
    layers.push_back({std::string("classifier.fc") + i, Linear{o.batch, i[0] == '1' ? features : hidden, hidden}});
    layers.push_back(
        {std::string("classifier.relu") + i, Activation{ActivationFunc::relu, checked_mul(o.batch, hidden)}});
    if (dropout) layers.push_back({std::string("classifier.dropout") + i, Dropout{checked_mul(o.batch, hidden)}});
  }
  layers.push_back({"classifier.fc3", Linear{o.batch, hidden, e.uint("num_classes")}});
  return layers;
}

}  // namespace

constinit const ModelFamily kVggFamily{"vgg", kKeys, build_vgg};

}  // namespace ecosim::detail
