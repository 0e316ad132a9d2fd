// Op counts of the network layers in both conventions (exact formulas: ops_counter/README.md; paper: the
// mmcv MAC rules of the model zoo notes, one MAC = one multiplication + one addition).
#include "ecosim/ops_counter/layers.hpp"

#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim {

namespace {

struct LayerEmitter {
  const std::string& name;
  Convention convention;
  OpSink& sink;
  std::uint64_t passes;  // Layer::passes

  void operator()(OpRecord r, const OpCounts& paper) const {
    if (r.name.empty()) r.name = name;
    if (passes > 1) r.params[std::string(ops::kPassesParam)] = passes;
    sink.record(ops::in_convention(std::move(r), convention, paper));
  }

  void operator()(const Linear& l) const {
    if (l.tokens % passes)
      throw Error("layer '" + name + "': " + std::to_string(l.tokens) + " tokens do not split into " +
                  std::to_string(passes) + " passes");
    // each pass reads the weights again (not shared across the batch of passes)
    const ops::GemmShape s{
        .batch = passes, .m = l.tokens / passes, .n = l.out, .k = l.in, .bias = l.bias, .b_shared = passes == 1};
    (*this)(ops::gemm("", s), ops::macs(checked_product({l.tokens, l.in, l.out})));
  }

  void operator()(const Conv2d& c) const {
    if (c.groups == 0 || c.in_ch % c.groups || c.out_ch % c.groups)
      throw Error("layer '" + name + "': channels not divisible by groups");
    const ConvShape s{.batch = c.batch,
                      .in_channels = c.in_ch,
                      .in_h = c.in_h,
                      .in_w = c.in_w,
                      .out_channels = c.out_ch,
                      .kernel_h = c.kernel,
                      .kernel_w = c.kernel,
                      .stride = c.stride,
                      .padding = c.pad,
                      .groups = c.groups};
    // paper: every output a patch-long dot product (+ bias), patch = (C/groups)·kernel²
    const std::uint64_t outputs = checked_product({c.batch, c.out_h(), c.out_w(), c.out_ch});
    OpRecord r = ops::conv("", s, c.bias);
    (*this)(std::move(r), ops::macs(checked_add(checked_mul(outputs, s.k()), c.bias ? outputs : 0)));
  }

  void operator()(const LayerNorm& l) const {
    // mmcv: 1 MAC per element, 2 when affine
    (*this)(
        ops::reduce("", "layernorm", 1, l.rows, l.width, DType::fp32, ops::layernorm_row(l.width, l.affine), l.width),
        ops::macs(checked_product({l.affine ? 2u : 1u, l.rows, l.width})));
  }

  // The mmcv rule of an affine norm, 2 MACs per element, as LayerNorm's.
  void operator()(const RmsNorm& l) const {
    if (l.unit_offset)  // 1 + γ, once a pass (mmcv: nothing)
      (*this)(ops::prefixed(ops::eltwise("scale", "add", 1, passes, l.width, DType::fp32, {.add = 1}), name), {});
    (*this)(ops::reduce("", "rmsnorm", 1, l.rows, l.width, DType::fp32, ops::rmsnorm_row(l.width), l.width),
            ops::macs(checked_product({2, l.rows, l.width})));
  }

  void operator()(const Rotary& r) const {  // mmcv: no MACs (an elementwise op, like GELU or a residual)
    if (r.rotary_dims == 0 || r.rotary_dims % 2) throw Error("layer '" + name + "': rotary dims must be even");
    OpRecord rec = ops::eltwise("", "rotary", 1, r.vectors, r.rotary_dims, DType::fp32, ops::rotary_element());
    rec.params = {{std::string(ops::kRotaryDimsParam), r.rotary_dims}};
    (*this)(std::move(rec), {});
  }

  void operator()(const Activation& a) const {
    if (a.func == ActivationFunc::gelu)
      (*this)(ops::eltwise("", "gelu", 1, 1, a.elements, DType::fp32, ops::gelu_element()), {});
    else if (a.func == ActivationFunc::silu)
      (*this)(ops::eltwise("", "silu", 1, 1, a.elements, DType::fp32, ops::silu_element()), {});
    else
      (*this)(ops::eltwise("", "relu", 1, 1, a.elements, DType::fp32, ops::relu_element()), ops::macs(a.elements));
  }

  void operator()(const ResidualAdd& r) const {
    (*this)(ops::eltwise("", "add", 1, 1, r.elements, DType::fp32, {.add = 1}, 2), {});
  }

  void operator()(const ElementwiseMul& m) const {
    (*this)(ops::eltwise("", "mul", 1, 1, m.elements, DType::fp32, {.mul = 1}, 2), {});
  }

  void operator()(const MeanPool& p) const {
    (*this)(ops::reduce("", "mean", p.batch, p.width, p.tokens, DType::fp32, {.mul = 1, .add = p.tokens - 1}, 1),
            p.pooling_module ? ops::macs(checked_product({p.batch, p.tokens, p.width})) : OpCounts{});
  }

  void operator()(const AvgPool2d& p) const {
    const std::uint64_t out_h = conv_output_size(p.in_h, p.kernel, p.stride, 0),
                        out_w = conv_output_size(p.in_w, p.kernel, p.stride, 0);
    const std::uint64_t window = checked_mul(p.kernel, p.kernel);
    const std::uint64_t input = checked_product({p.batch, p.channels, p.in_h, p.in_w});
    OpRecord r = ops::reduce("", "avg_pool", p.batch, checked_product({p.channels, out_h, out_w}), window, DType::fp32,
                             {.mul = 1, .add = window - 1}, 1, input);
    r.params = {{std::string(ops::kPoolKernelParam), p.kernel}, {std::string(ops::kPoolStrideParam), p.stride}};
    (*this)(std::move(r), ops::macs(input));  // mmcv: input elements
  }

  void operator()(const BatchNorm2d& b) const {
    const std::uint64_t elements = checked_product({b.batch, b.channels, b.h, b.w});
    // mmcv: an affine norm counts 2 MACs per element
    (*this)(ops::eltwise("", "batchnorm", 1, 1, elements, DType::fp32, {.mul = 1, .add = 1}),
            ops::macs(checked_mul(2, elements)));
  }

  void operator()(const MaxPool2d& p) const {
    const std::uint64_t window = checked_mul(p.kernel, p.kernel);
    const std::uint64_t input = checked_product({p.batch, p.channels, p.in_h, p.in_w});
    OpRecord r = ops::reduce("", "max_pool", p.batch, checked_product({p.channels, p.out_h(), p.out_w()}), window,
                             DType::fp32, {.cmp = window - 1}, 1, input);
    r.params = {{std::string(ops::kPoolKernelParam), p.kernel},
                {std::string(ops::kPoolStrideParam), p.stride},
                {std::string(ops::kPoolPadParam), p.pad}};
    (*this)(std::move(r), ops::macs(input));  // mmcv: input elements
  }

  void operator()(const Dropout&) const {}  // the identity in inference

  void operator()(const Softmax& s) const { (*this)(ops::softmax("", s.batch, s.rows, s.len), {}); }

  // paper: the products, batch·m·n·k MACs, as DESIGN §3 counts attention's scores and context (mmcv's hooks see
  // no `@`, but an attention block the importer does not recognise must not lose its products)
  void operator()(const Matmul& m) const {
    (*this)(ops::gemm("", {.batch = m.batch, .m = m.m, .n = m.n, .k = m.k}),
            ops::macs(checked_product({m.batch, m.m, m.n, m.k})));
  }

  void operator()(const AttentionConfig& a) const { emit_attention(name, a, convention, sink); }

  void operator()(const SoftmaxAttention& a) const {
    const std::uint64_t g = checked_mul(a.batch, a.heads);
    stages::Stage core = stages::softmax_core(g, a.queries, a.keys, a.head_dim);
    // the mask and the bias, each one add (or one selection) per score between the scale and the softmax, are
    // of the attention's group: one attention, fused or not
    const auto on_scores = [&](OpRecord r) {
      r.group = core.front().exact.group;
      return stages::StageRecord{std::move(r), OpCounts{}};
    };
    if (a.biased)
      core.insert(core.begin() + 2,
                  on_scores(ops::eltwise("bias", "add", g, a.queries, a.keys, DType::fp32, {.add = 1}, 2)));
    if (a.masked)
      core.insert(
          core.begin() + 2,
          on_scores(a.mask_select ? ops::eltwise("mask", "where", g, a.queries, a.keys, DType::fp32, {}, 2)
                                  : ops::eltwise("mask", "add", g, a.queries, a.keys, DType::fp32, {.add = 1}, 2)));
    if (!a.scaled) core.erase(core.begin() + 1);
    detail::AttentionEmitter(name, convention, sink)(core);
  }

  void operator()(const Elementwise& e) const {
    OpRecord r = ops::eltwise("", e.func, 1, 1, e.elements, DType::fp32, e.per_element, 0);
    for (unsigned i = 0; i < e.inputs; ++i)  // each operand read once, a broadcast one at its own size
      r.counts.add_read_bytes(
          DType::fp32,
          storage_bytes(DType::fp32,
                        i < e.operand_elements.size() && e.operand_elements[i] ? e.operand_elements[i] : e.elements));
    (*this)(std::move(r), ops::macs(e.paper_macs));
  }

  void operator()(const Reduction& r) const {
    (*this)(ops::reduce("", r.func, 1, r.rows, r.len, DType::fp32, r.per_row, 1, r.input_elements),
            ops::macs(r.paper_macs));
  }

  void operator()(const DataMovement& d) const {
    OpRecord r = ops::memcpy("", 1, 1, d.elements, DType::fp32);
    r.func = d.func;
    (*this)(std::move(r), {});
  }

  void operator()(const ConvTranspose2d& c) const {
    if (c.groups == 0 || c.in_ch % c.groups || c.out_ch % c.groups)
      throw Error("layer '" + name + "': channels not divisible by groups");
    const std::uint64_t pixels = checked_product({c.batch, c.in_h, c.in_w});
    const std::uint64_t per_pixel = checked_product({c.out_ch / c.groups, c.kernel_h, c.kernel_w});
    const ops::GemmShape s{.batch = c.groups, .m = pixels, .n = per_pixel, .k = c.in_ch / c.groups};
    const std::uint64_t products = checked_product({c.groups, pixels, per_pixel}),
                        outputs = checked_product({c.batch, c.out_ch, c.out_h, c.out_w});
    const std::uint64_t bias = c.bias ? outputs : 0;
    // mmcv: every input pixel times C_in·(C_out/groups)·kernel² weights, plus one bias per output
    const std::uint64_t paper = checked_add(checked_mul(products, s.k), bias);
    const auto convolution = [](OpRecord r) {
      r.params[std::string(ops::kConvolutionParam)] = 1;
      return r;
    };
    (*this)(convolution(ops::prefixed(ops::gemm("gemm", s), name)), ops::macs(paper));
    // contributions beyond the first of each output are summed (none are lost: every output has one)
    // (exact when every output receives a contribution, i.e. stride ≤ kernel)
    const std::uint64_t sums = checked_add(products > outputs ? products - outputs : 0, bias);
    if (sums)
      (*this)(convolution(ops::prefixed(ops::eltwise("col2im", "add", 1, 1, sums, DType::fp32, {.add = 1}, 2), name)),
              {});
  }
};

}  // namespace

std::uint64_t Conv2d::out_h() const { return conv_output_size(in_h, kernel, stride, pad); }
std::uint64_t Conv2d::out_w() const { return conv_output_size(in_w, kernel, stride, pad); }
std::uint64_t MaxPool2d::out_h() const { return conv_output_size(in_h, kernel, stride, pad); }
std::uint64_t MaxPool2d::out_w() const { return conv_output_size(in_w, kernel, stride, pad); }

namespace {
constexpr std::string_view kNetworkInputPrefix = "network input ";
}  // namespace

std::string network_input_name(std::string_view graph_input) {
  return std::string(kNetworkInputPrefix) + std::string(graph_input);
}

bool is_network_input_name(std::string_view name) { return name.starts_with(kNetworkInputPrefix); }

void emit(const Layer& layer, Convention convention, OpSink& sink) {
  if (layer.passes == 0) throw Error("layer '" + layer.name + "': passes must be at least 1");
  std::visit(LayerEmitter{layer.name, convention, sink, layer.passes}, layer.op);
}

}  // namespace ecosim
