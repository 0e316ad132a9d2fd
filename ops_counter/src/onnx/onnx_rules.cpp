// fvcore's counting rules for an imported model (--rules fvcore): the layers re-expressed so that the paper
// convention counts only what fvcore counts — convolutions, linear layers and matrix products, one MAC per
// multiply-accumulate, biases not counted (how torchvision, timm and fvcore publish their GFLOPs).
#include <fmt/core.h>

#include "ecosim/ops_counter/onnx_model.hpp"

namespace ecosim {

namespace {

/// A layer's fvcore form appended to `out`: kept (without bias), split into its products, or dropped.
struct FvcoreLayer {
  const Layer& layer;
  std::vector<Layer>& out;

  void keep(auto op) const { out.push_back(Layer{layer.name, op, layer.input, layer.attention_part}); }
  void operator()(const Linear& l) const { keep(l); }  // paper: tokens·in·out, bias not counted
  void operator()(Conv2d c) const {
    c.bias = false;
    keep(c);
  }
  void operator()(ConvTranspose2d c) const {
    c.bias = false;
    keep(c);
  }
  void operator()(const Matmul& m) const { keep(m); }
  /// A found block: its scores Q·Kᵀ and context P·V products (the scale, mask and softmax are not counted), parts
  /// of the attention still (--scope attention).
  void operator()(const SoftmaxAttention& a) const {
    const std::uint64_t groups = a.batch * a.heads;
    out.push_back(Layer{layer.name + ".scores", Matmul{.batch = groups, .m = a.queries, .n = a.keys, .k = a.head_dim},
                        layer.input, true});
    out.push_back(Layer{layer.name + ".context", Matmul{.batch = groups, .m = a.queries, .n = a.head_dim, .k = a.keys},
                        "", true});
  }
  void operator()(const AttentionConfig&) const {
    throw Error(
        fmt::format("layer '{}': --rules fvcore counts the export's own operations; a swapped attention "
                    "variant has no fvcore count (keep --attention native)",
                    layer.name));
  }
  void operator()(const auto&) const {}  // norms, activations, softmax, elementwise, pooling, copies: not counted
};

}  // namespace

std::vector<Layer> fvcore_layers(const std::vector<Layer>& layers) {
  std::vector<Layer> out;
  for (const Layer& layer : layers) std::visit(FvcoreLayer{layer, out}, layer.op);
  return out;
}

}  // namespace ecosim
