// libFuzzer target: any bytes import as an ONNX model or fail with ecosim::Error — reading, shape inference, the
// shape evaluator's folding of shape arithmetic — and so does swapping every attention block found for EcoFormer's,
// and counting every layer; the protobuf recursion limit, the evaluator's budgets and the input's size bound the
// work.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const ecosim::OnnxModel model =
        ecosim::parse_onnx(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    ecosim::AttentionConfig swap;
    swap.variant = ecosim::AttentionVariant::ecoformer;
    for (const auto& as : {std::optional<ecosim::AttentionConfig>{}, std::optional{swap}})
      for (const ecosim::Layer& layer : ecosim::onnx_layers(model, as)) {
        ecosim::OpCounter counter;
        ecosim::emit(layer, ecosim::Convention::exact, counter);
      }
  } catch (const ecosim::Error&) {}
  return 0;
}
