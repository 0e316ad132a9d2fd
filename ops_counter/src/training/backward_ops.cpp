// The backward pass of each layer kind as op records: for a linear, conv or `@` the two gradient GEMMs (input
// and weights, or both operands) and the bias sum; for the other layers the gradient of their input from what
// they saved (operation mixes in ops_counter/README.md, "Training step"). Paper convention: each gradient GEMM
// counts its forward's MACs (the backward of a GEMM is twice its forward), every other backward its layer's
// forward paper count.
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/primitives.hpp"
#include "training_rules.hpp"

namespace ecosim::training {

namespace {

/// Operation mixes of the backward passes (derivations in ops_counter/README.md).
ops::OpMix batchnorm_backward_row(std::uint64_t len) {  // one channel's len elements
  return {.mul = checked_add(checked_mul(5, len), 2), .add = checked_sub(checked_mul(5, len), 2)};
}
ops::OpMix layernorm_backward_row(std::uint64_t len, bool affine) {
  const std::uint64_t scale_shift = affine ? checked_mul(2, len) : 0;  // dγ, dβ and γ·dy
  return {.mul = checked_add(checked_mul(3, len), 2 + scale_shift),
          .add = checked_add(checked_sub(checked_mul(5, len), 2), scale_shift)};
}
/// A normalisation's parameter gradients alone (its input requires none): x̂ recomputed (a sub and a mul), dγ += dY·x̂
/// and dβ += dY, per element.
ops::OpMix norm_parameters_backward_element() { return {.mul = 2, .add = 3}; }
ops::OpMix softmax_backward_row(std::uint64_t len) {  // y·(dy − Σ dy·y)
  return {.mul = checked_mul(2, len), .add = checked_sub(checked_mul(2, len), 1)};
}
ops::OpMix gelu_backward_element() { return {.mul = 13, .add = 7, .exp = 1, .div = 1}; }  // tanh form, from x
/// SiLU's, from x: s = σ(x) recomputed as the forward computes x·σ(x)'s σ (an add, an exp, a division), then
/// dY·s·(1 + x·(1 − s)): 3 muls and 2 adds.
ops::OpMix silu_backward_element() {
  ops::OpMix m = ops::silu_element();
  m.mul += 3;
  m.add += 2;
  return m;
}
/// Per element, the gradient of an imported elementwise op from what it saved: `x` and `y` whether its first and
/// second operands' gradients are computed (a constant's only when it is a learned table), `summed` how many of
/// those are summed over a broadcast (a LayerScale's γ over the tokens: an add per element).
ops::OpMix elementwise_backward(const std::string& func, bool x, bool y, std::uint64_t summed) {
  const std::uint64_t dx = x ? 1 : 0, dy = y ? 1 : 0;
  if (func == "Mul") return {.mul = dx + dy, .add = summed};                 // dY·y, dY·x
  if (func == "Div") return {.mul = 2 * dy, .add = summed, .div = dx + dy};  // dY/y, −(dY·x)/(y·y)
  if (func == "Pow") return {.mul = 2};                                      // dY·p·x^(p−1), p = 2
  if (func == "Erf") return {.mul = 3, .exp = 1};                            // dY·2/√π·e^(−x²)
  if (func == "Sqrt") return {.mul = 1, .div = 1};                           // dY·0.5/y
  if (func == "Tanh" || func == "Sigmoid") return {.mul = 2, .add = 1};      // dY·(1 − y²) | y(1 − y)
  if (func == "Reciprocal") return {.mul = 2};                               // −dY·y²
  if (func == "Clip") return {.cmp = 2};                                     // dY where lo < x < hi, else 0
  return {.mul = 1};                                                         // Exp: dY·y; Neg: −dY
}

OpCounts forward_paper(const Layer& layer) {
  OpCounter counter;
  emit(layer, Convention::paper, counter);
  return counter.total();
}

struct BackwardEmitter {
  const Layer& layer;
  Convention convention;
  OpSink& sink;
  bool input_gradient;  // false: the layer reads data (its input requires no gradient, none is computed)
  bool other_gradient;  // false: its second operand (Layer::other) requires none

  void record(OpRecord r, const OpCounts& paper) const {
    sink.record(ops::in_convention(ops::prefixed(std::move(r), layer.name + ".backward"), convention, paper));
  }
  /// A gradient GEMM: paper = its products as MACs.
  void gemm(const std::string& part, const ops::GemmShape& s) const {
    record(ops::gemm(part, s), ops::macs(checked_product({s.batch, s.m, s.n, s.k})));
  }
  /// The one record of a non-GEMM layer's backward: paper = the layer's forward paper count.
  void single(OpRecord r) const { record(std::move(r), forward_paper(layer)); }

  void linear(const std::string& prefix, const Linear& l) const {
    if (input_gradient) gemm(prefix + "grad_input", {.m = l.tokens, .n = l.in, .k = l.out, .b_shared = true});  // dY·Wᵀ
    gemm(prefix + "grad_weight", {.m = l.in, .n = l.out, .k = l.tokens});  // Xᵀ·dY
    if (l.bias)
      record(ops::reduce(prefix + "grad_bias", "sum", 1, l.out, l.tokens, DType::fp32, ops::sum_row(l.tokens), 1), {});
  }

  void operator()(const Linear& l) const { linear("", l); }

  void operator()(const Conv2d& c) const {
    const std::uint64_t g = c.groups, pixels = checked_product({c.batch, c.out_h(), c.out_w()});
    // dX: the transposed convolution of dY with the weights (per-pixel GEMM, overlapping taps summed)
    const ConvTranspose2d grad_input{.batch = c.batch,
                                     .in_ch = c.out_ch,
                                     .out_ch = c.in_ch,
                                     .in_h = c.out_h(),
                                     .in_w = c.out_w(),
                                     .out_h = c.in_h,
                                     .out_w = c.in_w,
                                     .kernel_h = c.kernel,
                                     .kernel_w = c.kernel,
                                     .groups = g,
                                     .bias = false};
    struct Prefixed : OpSink {
      const BackwardEmitter& e;
      explicit Prefixed(const BackwardEmitter& x) : e(x) {}
      void record(const OpRecord& r) override { e.sink.record(ops::prefixed(r, e.layer.name + ".backward")); }
    } prefixed(*this);
    if (input_gradient) emit({"grad_input", grad_input}, convention, prefixed);
    // dW: per group, dY (C_out/g × pixels) times the input patches (pixels × (C_in/g)·k²): a convolution's
    OpRecord grad_weight = ops::gemm(
        "grad_weight",
        {.batch = g, .m = c.out_ch / g, .n = checked_product({c.in_ch / g, c.kernel, c.kernel}), .k = pixels});
    grad_weight.params[std::string(ops::kConvolutionParam)] = 1;
    record(grad_weight, ops::macs(checked_product({g, c.out_ch / g, grad_weight.n, pixels})));
    if (c.bias)  // mmcv counts one MAC per output for the bias, forward and backward
      record(ops::reduce("grad_bias", "sum", 1, c.out_ch, pixels, DType::fp32, ops::sum_row(pixels), 1),
             ops::macs(checked_mul(pixels, c.out_ch)));
  }

  /// Without an input gradient, dγ and dβ alone: elementwise over the layer's elements.
  void norm_parameters(const std::string& func, std::uint64_t elements) const {
    single(ops::eltwise("grad_params", func + "_params_backward", 1, 1, elements, DType::fp32,
                        norm_parameters_backward_element(), 2));
  }

  void operator()(const BatchNorm2d& b) const {
    const std::uint64_t len = checked_product({b.batch, b.h, b.w});
    if (!input_gradient) return norm_parameters("batchnorm", checked_mul(b.channels, len));
    single(ops::reduce("grad_input", "batchnorm_backward", 1, b.channels, len, DType::fp32, batchnorm_backward_row(len),
                       len));
  }

  void operator()(const LayerNorm& l) const {
    if (!input_gradient) return norm_parameters("layernorm", checked_mul(l.rows, l.width));
    single(ops::reduce("grad_input", "layernorm_backward", 1, l.rows, l.width, DType::fp32,
                       layernorm_backward_row(l.width, l.affine), l.width));
  }

  void operator()(const Activation& a) const {
    if (a.func == ActivationFunc::relu)  // dY where the saved output is positive
      single(ops::eltwise("grad_input", "relu_backward", 1, 1, a.elements, DType::fp32, {.cmp = 1}, 2));
    else if (a.func == ActivationFunc::silu)
      single(ops::eltwise("grad_input", "silu_backward", 1, 1, a.elements, DType::fp32, silu_backward_element(), 2));
    else
      single(ops::eltwise("grad_input", "gelu_backward", 1, 1, a.elements, DType::fp32, gelu_backward_element(), 2));
  }

  void operator()(const ResidualAdd& r) const {  // the gradients of the two branches summed at their fork
    single(ops::eltwise("grad_sum", "add", 1, 1, r.elements, DType::fp32, {.add = 1}, 2));
  }

  void operator()(const ElementwiseMul& m) const {  // dX = dY·other, dOther = dY·X
    single(ops::eltwise("grad_input", "mul_backward", 1, 1, m.elements, DType::fp32,
                        elementwise_backward("Mul", input_gradient, other_gradient, 0), 3));
  }

  void operator()(const MeanPool& p) const {  // dY/tokens, broadcast over the tokens
    const std::uint64_t outputs = checked_mul(p.batch, p.width);
    single(ops::eltwise("grad_input", "mean_backward", 1, 1, outputs, DType::fp32, {.mul = 1}));
    record(ops::memcpy("broadcast", p.batch, p.tokens, p.width, DType::fp32), {});
  }

  void operator()(const AvgPool2d& p) const {  // dY/window added into each window position
    const std::uint64_t outputs = checked_product({p.batch, p.channels, conv_output_size(p.in_h, p.kernel, p.stride, 0),
                                                   conv_output_size(p.in_w, p.kernel, p.stride, 0)});
    single(ops::eltwise("grad_input", "avg_pool_backward", 1, 1, outputs, DType::fp32,
                        {.mul = 1, .add = checked_mul(p.kernel, p.kernel)}));
  }

  void operator()(const MaxPool2d& p) const {  // dY added at each window's saved index
    single(ops::eltwise("grad_input", "max_pool_backward", 1, 1,
                        checked_product({p.batch, p.channels, p.out_h(), p.out_w()}), DType::fp32, {.add = 1}, 2));
  }

  void operator()(const Dropout& d) const {  // dY times the saved mask (scaled by 1/(1 − p))
    single(ops::eltwise("grad_input", "dropout_backward", 1, 1, d.elements, DType::fp32, {.mul = 1}, 2));
  }

  void operator()(const Softmax& s) const {
    single(ops::reduce("grad_input", "softmax_backward", s.batch, s.rows, s.len, DType::fp32,
                       softmax_backward_row(s.len), s.len));
  }

  void operator()(const Matmul& m) const {  // paper: the products of each gradient computed, as the forward's
    if (input_gradient) gemm("grad_a", {.batch = m.batch, .m = m.m, .n = m.k, .k = m.n});  // dC·Bᵀ
    if (other_gradient) gemm("grad_b", {.batch = m.batch, .m = m.k, .n = m.n, .k = m.m});  // Aᵀ·dC
  }

  void operator()(const AttentionConfig& a) const {
    const AttentionShape shape = attention_shape(layer.name, a);  // refuses what is not modelled
    const ProjectionTokens tokens = projection_tokens(a);
    const std::uint64_t inner = checked_mul(a.heads, a.head_dim);
    const std::uint64_t g = shape.groups, n = shape.tokens, d = a.head_dim, scores = checked_product({g, n, n});
    linear("proj.", {.tokens = tokens.proj, .in = inner, .out = a.width()});
    gemm("context.grad_probs", {.batch = g, .m = n, .n = n, .k = d});  // dCtx·Vᵀ
    gemm("context.grad_v", {.batch = g, .m = n, .n = d, .k = n});      // Pᵀ·dCtx
    if (a.probs_dropout)
      record(ops::eltwise("probs_dropout.grad_input", "dropout_backward", g, n, n, DType::fp32, {.mul = 1}, 2), {});
    record(ops::reduce("softmax.grad_input", "softmax_backward", g, n, n, DType::fp32, softmax_backward_row(n), n), {});
    record(ops::eltwise("scale.grad_input", "scale", g, n, n, DType::fp32, {.mul = 1}), ops::muls(scores));
    gemm("scores.grad_q", {.batch = g, .m = n, .n = d, .k = n});  // dS·K
    gemm("scores.grad_k", {.batch = g, .m = n, .n = d, .k = n});  // dSᵀ·Q
    linear("qkv.", {.tokens = tokens.qkv, .in = a.width(), .out = checked_mul(3, inner)});
  }

  // The kinds an ONNX import adds (ecosim train --onnx); layer_tensors refuses the forms without rules.

  void operator()(const SoftmaxAttention& a) const {  // the attention matmuls, softmax and scale backward
    (void)layer_tensors(layer);
    const std::uint64_t g = checked_mul(a.batch, a.heads), n = a.queries, k = a.keys, d = a.head_dim;
    gemm("context.grad_probs", {.batch = g, .m = n, .n = k, .k = d});  // dCtx·Vᵀ
    gemm("context.grad_v", {.batch = g, .m = k, .n = d, .k = n});      // Pᵀ·dCtx
    if (a.probs_dropout)
      record(ops::eltwise("probs_dropout.grad_input", "dropout_backward", g, n, k, DType::fp32, {.mul = 1}, 2), {});
    record(ops::reduce("softmax.grad_input", "softmax_backward", g, n, k, DType::fp32, softmax_backward_row(k), k), {});
    if (a.scaled)
      record(ops::eltwise("scale.grad_input", "scale", g, n, k, DType::fp32, {.mul = 1}),
             ops::muls(checked_product({g, n, k})));
    gemm("scores.grad_q", {.batch = g, .m = n, .n = d, .k = k});  // dS·K
    gemm("scores.grad_k", {.batch = g, .m = k, .n = d, .k = n});  // dSᵀ·Q
  }

  void operator()(const Elementwise& e) const {
    (void)layer_tensors(layer);  // refuses the forms without rules
    if (e.func == "Add" || e.func == "Sub") {
      // the gradient passes to both operands; where the graph forks (a residual) the two branches' gradients are
      // summed, counted here as ResidualAdd counts it
      single(ops::eltwise("grad_sum", "add", 1, 1, e.elements, DType::fp32, {.add = 1}, 2));
      return;
    }
    // operand i's gradient: a learned table's always; an activation's as it requires one (the one activation of a
    // product with a constant is the layer's input)
    const auto gradient = [&](unsigned i) {
      if (e.constant_operands & (1u << i)) return (e.learned_operands & (1u << i)) != 0;
      return (i == 0 || e.constant_operands != 0) ? input_gradient : other_gradient;
    };
    std::uint64_t summed = 0;  // gradients of operands broadcast to the output, summed back to their own elements
    for (unsigned i = 0; i < 2; ++i)
      if (gradient(i) && e.operand_elements[i] && e.operand_elements[i] < e.elements) ++summed;
    single(ops::eltwise("grad_input", e.func + "_backward", 1, 1, e.elements, DType::fp32,
                        elementwise_backward(e.func, gradient(0), gradient(1), summed), 2));
  }

  void operator()(const Reduction& r) const {
    (void)layer_tensors(layer);
    if (r.func == "MaxPool") {  // dY added at each window's saved index
      single(ops::eltwise("grad_input", "max_pool_backward", 1, 1, r.rows, DType::fp32, {.add = 1}, 2));
      return;
    }
    // average: dY/window added into each window position (global: broadcast over the window)
    single(ops::eltwise("grad_input", "avg_pool_backward", 1, 1, r.rows, DType::fp32, {.mul = 1, .add = r.len}));
  }

  void operator()(const DataMovement& d) const {  // the gradient moved back, no arithmetic
    (void)layer_tensors(layer);
    if (d.saved_indices)  // a table lookup: each gathered row's gradient added into the table's (a scatter-add)
      record(ops::eltwise("grad_table", "scatter_add", 1, 1, d.elements, DType::fp32, {.add = 1}), {});
    else
      record(ops::memcpy("grad_input", 1, 1, d.elements, DType::fp32), {});
  }
  void operator()(const ConvTranspose2d&) const { (void)layer_tensors(layer); }
  void operator()(const RmsNorm&) const { (void)layer_tensors(layer); }
  void operator()(const Rotary&) const { (void)layer_tensors(layer); }
};

}  // namespace

void emit_backward(const Layer& layer, Convention convention, OpSink& sink, const GradientFlow& flow) {
  std::visit(BackwardEmitter{layer, convention, sink, flow.input_gradient, flow.other_gradient}, layer.op);
}

}  // namespace ecosim::training
