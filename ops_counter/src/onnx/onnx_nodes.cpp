// One ONNX node as a layer (formulas in ops_counter/README.md, "ONNX import"): the zoo's kinds where one fits
// (Linear, Conv2d, LayerNorm, ReLU/GELU, Softmax, Matmul, mean; Einsum as a GEMM, onnx_einsum.cpp), elementwise and
// reduction ops with their per-element operations, pooling, BatchNorm in its inference form, transposed convolution,
// the copying shape ops as data movement and the views (Reshape, Squeeze, Constant, ...) as nothing.
#include <algorithm>
#include <functional>
#include <iterator>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"
#include "onnx_convert.hpp"

namespace ecosim::onnx_import {

namespace {

using Rule = std::function<std::optional<Layer>(const Context&, const Node&)>;

/// Paper convention of elementwise ops: mmcv counts the ReLU family (one MAC per output), nothing else.
struct ElementwiseOp {
  ops::OpMix per_element;
  unsigned inputs = 1;
  bool relu_family = false;
};

const std::map<std::string, ElementwiseOp>& elementwise_ops() {
  static const std::map<std::string, ElementwiseOp> table = {
      {"Add", {{.add = 1}, 2}},
      {"Sub", {{.add = 1}, 2}},
      {"Mul", {{.mul = 1}, 2}},
      {"Div", {{.div = 1}, 2}},
      {"Max", {{.cmp = 1}, 2}},
      {"Min", {{.cmp = 1}, 2}},
      {"Equal", {{.cmp = 1}, 2}},
      {"Less", {{.cmp = 1}, 2}},
      {"Greater", {{.cmp = 1}, 2}},
      {"LessOrEqual", {{.cmp = 1}, 2}},
      {"GreaterOrEqual", {{.cmp = 1}, 2}},
      {"And", {{.cmp = 1}, 2}},  // a logical op: one comparison-class op
      {"Or", {{.cmp = 1}, 2}},
      {"Xor", {{.cmp = 1}, 2}},
      {"Not", {{.cmp = 1}}},
      {"Sqrt", {{.sqrt = 1}}},
      {"Exp", {{.exp = 1}}},
      {"Erf", {{.exp = 1}}},                                 // one transcendental evaluation
      {"Tanh", {{.mul = 1, .add = 2, .exp = 1, .div = 1}}},  // (e^2x − 1)/(e^2x + 1)
      {"Sigmoid", {{.add = 1, .exp = 1, .div = 1}}},         // 1/(1 + e^−x)
      {"HardSigmoid", {{.mul = 1, .add = 1, .cmp = 2}}},     // clamp(αx + β, 0, 1)
      {"HardSwish", {{.mul = 2, .add = 1, .cmp = 2}}},       // x·clamp(x + 3, 0, 6)·(1/6)
      {"Neg", {{.mul = 1}}},
      {"Reciprocal", {{.div = 1}}},
      {"LeakyRelu", {{.mul = 1, .cmp = 1}, 1, true}},
      {"Clip", {{.cmp = 2}, 1, true}},  // ReLU6
  };
  return table;
}

std::uint64_t out_elements(const Context& c, const Node& n) { return c.elements(n.outputs.at(0), n); }

std::int64_t attribute(const Node& n, const std::string& key, std::int64_t fallback) {
  const auto it = n.ints.find(key);
  return it == n.ints.end() || it->second.empty() ? fallback : it->second[0];
}

/// All entries of an INTS attribute equal (or absent, = fallback); none otherwise.
std::optional<std::uint64_t> uniform(const Node& n, const std::string& key, std::uint64_t fallback) {
  const auto it = n.ints.find(key);
  if (it == n.ints.end() || it->second.empty()) return fallback;
  for (std::int64_t v : it->second)
    if (v != it->second[0] || v < 0 || static_cast<std::uint64_t>(v) > kMaxDimension) return std::nullopt;
  return static_cast<std::uint64_t>(it->second[0]);
}

/// Bit i set for each of the first `count` operands of `n` that is a constant or a folded one-element value.
unsigned constant_operands(const Context& c, const Node& n, unsigned count) {
  unsigned bits = 0;
  for (unsigned i = 0; i < count && i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty() && (c.constant(n.inputs[i]) || c.scalar(n.inputs[i]))) bits |= 1u << i;
  return bits;
}

std::optional<Layer> elementwise(const Context& c, const Node& n) {
  const ElementwiseOp& op = elementwise_ops().at(n.op);
  // Max and Min take any number of operands; counted as two, a third one's comparisons and reads would be lost
  if (op.inputs == 2 && n.inputs.size() > 2)
    c.fail(n, "has " + std::to_string(n.inputs.size()) +
                  " operands; only two are counted (export it as a chain of binary nodes)");
  const std::uint64_t elements = out_elements(c, n);
  std::array<std::uint64_t, 2> operands = {0, 0};  // an operand broadcast to the output: its own elements
  for (std::size_t i = 0; i < 2 && i < n.inputs.size() && op.inputs == 2; ++i)
    if (!n.inputs[i].empty() && c.has_dims(n.inputs[i]) && c.elements(n.inputs[i], n) < elements)
      operands[i] = c.elements(n.inputs[i], n);
  return Layer{"", Elementwise{.func = n.op,
                               .elements = elements,
                               .operand_elements = operands,
                               .per_element = op.per_element,
                               .inputs = op.inputs,
                               .paper_macs = op.relu_family ? elements : 0,
                               .constant_operands = constant_operands(c, n, op.inputs)}};
}

std::optional<Layer> power(const Context& c, const Node& n) {
  const auto exponent = n.inputs.size() == 2 ? c.scalar(n.inputs[1]) : std::nullopt;
  // x², √x, else exp(y·ln x): the logarithm and the exponential counted as two transcendental evaluations
  const ops::OpMix mix = exponent == 2.0   ? ops::OpMix{.mul = 1}
                         : exponent == 0.5 ? ops::OpMix{.sqrt = 1}
                                           : ops::OpMix{.mul = 1, .exp = 2};
  return Layer{"", Elementwise{.func = "Pow",
                               .elements = out_elements(c, n),
                               .per_element = mix,
                               .inputs = 2,
                               .constant_operands = constant_operands(c, n, 2)}};
}

std::optional<Layer> conv(const Context& c, const Node& n) {
  const auto& x = c.dims(n.inputs.at(0), n);
  const auto& w = c.dims(n.inputs.at(1), n);
  const auto& y = c.dims(n.outputs.at(0), n);
  const auto stride = uniform(n, "strides", 1), pad = uniform(n, "pads", 0), dilation = uniform(n, "dilations", 1);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) c.fail(n, "only 2-D convolutions are counted");
  if (w[2] != w[3] || !stride || !pad || dilation != 1u || n.ints.contains("auto_pad"))
    c.fail(n, "only square kernels with equal strides, equal explicit pads and no dilation are counted");
  const Conv2d conv{.batch = x[0],
                    .in_ch = x[1],
                    .out_ch = w[0],
                    .in_h = x[2],
                    .in_w = x[3],
                    .kernel = w[2],
                    .stride = *stride,
                    .pad = *pad,
                    .groups = static_cast<std::uint64_t>(attribute(n, "group", 1)),
                    .bias = n.inputs.size() > 2 && !n.inputs[2].empty()};
  if (conv.groups == 0 || x[1] != checked_mul(w[1], conv.groups) || y[1] != conv.out_ch || y[2] != conv.out_h() ||
      y[3] != conv.out_w())
    c.fail(n, "the weights, groups and output shape do not agree with the input");
  return Layer{"", conv};
}

std::optional<Layer> conv_transpose(const Context& c, const Node& n) {
  const auto& x = c.dims(n.inputs.at(0), n);
  const auto& w = c.dims(n.inputs.at(1), n);  // C_in × C_out/groups × kh × kw
  const auto& y = c.dims(n.outputs.at(0), n);
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) c.fail(n, "only 2-D transposed convolutions are counted");
  const auto groups = static_cast<std::uint64_t>(attribute(n, "group", 1));
  if (groups == 0 || w[0] != x[1] || y[1] != checked_mul(w[1], groups))
    c.fail(n, "the weights, groups and output shape do not agree with the input");
  return Layer{"", ConvTranspose2d{.batch = x[0],
                                   .in_ch = x[1],
                                   .out_ch = y[1],
                                   .in_h = x[2],
                                   .in_w = x[3],
                                   .out_h = y[2],
                                   .out_w = y[3],
                                   .kernel_h = w[2],
                                   .kernel_w = w[3],
                                   .groups = groups,
                                   .bias = n.inputs.size() > 2 && !n.inputs[2].empty()}};
}

std::optional<Layer> matmul(const Context& c, const Node& n) {
  const auto& a = c.dims(n.inputs.at(0), n);
  const auto& b = c.dims(n.inputs.at(1), n);
  if (a.empty() || b.empty()) c.fail(n, "MatMul of a scalar");
  const std::uint64_t k = a.back(), m = a.size() > 1 ? a[a.size() - 2] : 1, cols = b.size() > 1 ? b.back() : 1;
  if ((b.size() > 1 ? b[b.size() - 2] : b[0]) != k) c.fail(n, "inner dimensions differ");
  if (c.constant(n.inputs[1]) && b.size() == 2)  // activations times a weight matrix: a Linear layer
    return Layer{"", Linear{.tokens = c.elements(n.inputs[0], n) / k, .in = k, .out = cols, .bias = false}};
  const std::uint64_t batch = out_elements(c, n) / checked_mul(m, cols);
  return Layer{"", Matmul{.batch = batch, .m = m, .n = cols, .k = k}};
}

std::optional<Layer> gemm(const Context& c, const Node& n) {
  const auto& a = c.dims(n.inputs.at(0), n);
  const auto& b = c.dims(n.inputs.at(1), n);
  if (a.size() != 2 || b.size() != 2) c.fail(n, "Gemm operands must be matrices");
  const bool ta = attribute(n, "transA", 0) != 0, tb = attribute(n, "transB", 0) != 0;
  const std::uint64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1], cols = tb ? b[0] : b[1];
  if ((tb ? b[1] : b[0]) != k) c.fail(n, "inner dimensions differ");
  const bool adds_c = n.inputs.size() > 2 && !n.inputs[2].empty();
  if (!c.constant(n.inputs[1])) {
    // a product of two activations has no Linear to hold C: counted as a bare Matmul its additions would be lost
    if (adds_c) c.fail(n, "a Gemm of two activations plus C is not counted (export the addition as its own Add)");
    return Layer{"", Matmul{.m = m, .n = cols, .k = k}};
  }
  return Layer{"", Linear{.tokens = m, .in = k, .out = cols, .bias = adds_c}};
}

/// Whether `tensor` is a learned weight: a floating-point initializer, read directly or through Identity (torch's
/// exporter writes one initializer for several equal ones, the others Identity copies of it).
bool learned(const Context& c, std::string tensor) {
  for (int step = 0; step < 8; ++step) {
    const auto p = c.producer(tensor);
    if (!p) break;
    const Node& n = c.node(*p);
    if (n.op != "Identity" || n.inputs.empty()) return false;
    tensor = n.inputs[0];
  }
  const Tensor* t = c.tensor(tensor);
  return t && t->float_initializer;
}

std::optional<Layer> layernorm(const Context& c, const Node& n) {
  const auto& x = c.dims(n.inputs.at(0), n);
  auto axis = attribute(n, "axis", -1);
  if (axis < 0) axis += static_cast<std::int64_t>(x.size());
  if (axis < 0 || axis >= static_cast<std::int64_t>(x.size())) c.fail(n, "axis out of range");
  std::uint64_t width = 1;
  for (std::size_t d = static_cast<std::size_t>(axis); d < x.size(); ++d) width = checked_mul(width, x[d]);
  // affine when its scale is learned (without, the exporter feeds constant ones or nothing)
  return Layer{"",
               LayerNorm{c.elements(n.inputs[0], n) / width, width, n.inputs.size() > 1 && learned(c, n.inputs[1])}};
}

std::optional<Layer> softmax(const Context& c, const Node& n) {
  const auto& x = c.dims(n.inputs.at(0), n);
  auto axis = attribute(n, "axis", -1);
  if (axis < 0) axis += static_cast<std::int64_t>(x.size());
  if (axis < 0 || axis >= static_cast<std::int64_t>(x.size())) c.fail(n, "axis out of range");
  const std::uint64_t len = x[static_cast<std::size_t>(axis)];
  return Layer{"", Softmax{.rows = c.elements(n.inputs[0], n) / len, .len = len}};
}

/// Reductions: ReduceMean as the zoo's mean (rows × length), the others as row reductions.
std::optional<Layer> reduce(const Context& c, const Node& n) {
  const std::uint64_t in = c.elements(n.inputs.at(0), n), rows = out_elements(c, n), len = in / rows;
  // without axes (attribute, or opset 18's input) over the whole tensor
  const bool whole = !n.ints.contains("axes") && (n.inputs.size() < 2 || n.inputs[1].empty());
  if (n.op == "ReduceMean") return Layer{"", MeanPool{.tokens = len, .width = rows, .whole_tensor = whole}};
  const ops::OpMix mix = n.op == "ReduceSum" ? ops::sum_row(len) : ops::OpMix{.cmp = len - 1};
  return Layer{"", Reduction{.func = n.op, .rows = rows, .len = len, .per_row = mix}};
}

bool pool_padding(const Context& c, const Node& n);

/// Pooling windows (mmcv: one MAC per input element): average = sum and one multiply, max = comparisons.
std::optional<Layer> pool(const Context& c, const Node& n) {
  const std::uint64_t in = c.elements(n.inputs.at(0), n), rows = out_elements(c, n);
  std::uint64_t window = in / rows;
  if (n.op == "AveragePool" || n.op == "MaxPool") {
    const auto it = n.ints.find("kernel_shape");
    if (it == n.ints.end() || it->second.empty()) c.fail(n, "pooling without kernel_shape");
    window = 1;
    for (std::int64_t k : it->second) {
      if (k <= 0) c.fail(n, "non-positive pooling kernel");
      window = checked_mul(window, static_cast<std::uint64_t>(k));
    }
  }
  const bool average = n.op == "AveragePool" || n.op == "GlobalAveragePool";
  const ops::OpMix mix = average ? ops::OpMix{.mul = 1, .add = window - 1} : ops::OpMix{.cmp = window - 1};
  // mmcv counts the module's input: PyTorch's own padding (a Pad before an average pool) is not part of it
  const auto padding = c.producer(n.inputs.at(0));
  const std::uint64_t module_in =
      padding && pool_padding(c, c.node(*padding)) ? c.elements(c.node(*padding).inputs.at(0), n) : in;
  return Layer{
      "",
      Reduction{
          .func = n.op, .rows = rows, .len = window, .per_row = mix, .paper_macs = module_in, .input_elements = in}};
}

/// BatchNorm over [N, C, spatial...] as the zoo's BatchNorm2d (the spatial dims as one): counted in its inference
/// form, y = a·x + b with a and b folded per channel (mmcv: 2 MACs per element); its channels and batch are what
/// the training step needs (its statistics, BN's backward).
std::optional<Layer> batchnorm(const Context& c, const Node& n) {
  const std::vector<std::uint64_t>& d = c.dims(n.inputs.at(0), n);
  if (d.size() < 2) c.fail(n, "BatchNormalization of a tensor of rank < 2");
  std::uint64_t spatial = 1;
  for (std::size_t i = 2; i < d.size(); ++i) spatial = checked_mul(spatial, d[i]);
  // an affine norm's scale is learned; without one the exporter feeds constant ones and zeros
  const bool affine = n.inputs.size() > 1 && learned(c, n.inputs[1]);
  return Layer{"", BatchNorm2d{.batch = d[0], .channels = d[1], .h = spatial, .w = 1, .affine = affine}};
}

std::optional<Layer> activation(const Context& c, const Node& n) {
  const ActivationFunc f = n.op == "Relu" ? ActivationFunc::relu : ActivationFunc::gelu;
  return Layer{"", Activation{f, out_elements(c, n)}};
}

/// A zero Pad read by an AveragePool alone: F.avg_pool2d(padding=p) as torch exports it (opsets 11–17), where
/// PyTorch pads inside the pool and keeps its unpadded input.
bool pool_padding(const Context& c, const Node& n) {
  if (n.op != "Pad" || n.outputs.empty()) return false;
  const auto mode = n.strings.find("mode");
  if (mode != n.strings.end() && mode->second != "constant") return false;
  if (n.inputs.size() > 2 && !n.inputs[2].empty() && c.scalar(n.inputs[2]) != 0.0) return false;
  if (const auto value = n.floats.find("value"); value != n.floats.end() && value->second != 0.0f)
    return false;  // opset < 11
  const auto reader = c.sole_consumer(n.outputs[0]);
  return reader && c.node(*reader).op == "AveragePool";
}

std::optional<Layer> data_movement(const Context& c, const Node& n) {
  std::uint64_t elements = 0;
  for (const std::string& out : n.outputs)
    if (!out.empty()) elements = checked_add(elements, c.elements(out, n));
  const bool view = n.op == "Transpose" || n.op == "Slice" || n.op == "Split" || n.op == "Expand" ||
                    (n.op == "Gather" && !c.constant(n.inputs.at(0))) ||  // a row of a weight table: a copy
                    pool_padding(c, n);
  // rows of a weight table gathered by token ids (an activation): nn.Embedding keeps the ids
  const bool lookup = n.op == "Gather" && n.inputs.size() == 2 && c.constant(n.inputs[0]) && !c.constant(n.inputs[1]) &&
                      c.has_dims(n.inputs[1]);
  return Layer{
      "",
      DataMovement{
          .func = n.op, .elements = elements, .view = view, .saved_indices = lookup ? c.elements(n.inputs[1], n) : 0}};
}

std::optional<Layer> view(const Context&, const Node&) { return std::nullopt; }

/// Dropout in a training export: the zoo's Dropout (a mask multiplied in); the identity otherwise (a view).
std::optional<Layer> dropout(const Context& c, const Node& n) {
  if (!dropping(c, n)) return std::nullopt;
  return Layer{"", Dropout{out_elements(c, n)}};
}

const std::map<std::string, Rule>& rules() {
  static const std::map<std::string, Rule> table = [] {
    std::map<std::string, Rule> t = {
        {"Pow", power},
        {"Conv", conv},
        {"ConvTranspose", conv_transpose},
        {"MatMul", matmul},
        {"Gemm", gemm},
        {"LayerNormalization", layernorm},
        {"Softmax", softmax},
        {"BatchNormalization", batchnorm},
        {"Relu", activation},
        {"Gelu", activation},
    };
    for (const auto& [op, _] : elementwise_ops()) t[op] = elementwise;
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax"}) t[op] = reduce;
    for (const char* op : {"AveragePool", "MaxPool", "GlobalAveragePool", "GlobalMaxPool"}) t[op] = pool;
    for (const char* op : {"Transpose", "Concat", "Slice", "Gather", "Expand", "Split", "Tile", "Pad", "Cast", "Where"})
      t[op] = data_movement;
    t["Dropout"] = dropout;
    for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity", "Shape", "Constant",
                           "ConstantOfShape", "Size", "Range"})
      t[op] = view;
    return t;
  }();
  return table;
}

}  // namespace

std::optional<Table> learned_table(const Context& c, const std::string& input,
                                   const std::map<std::string, std::string>& alias) {
  const auto seen = alias.find(input);
  const std::string& name = seen == alias.end() ? input : seen->second;
  const Tensor* t = c.tensor(name);
  if (!t || !t->float_initializer || !t->dims) return std::nullopt;
  std::uint64_t size = 1;
  for (std::uint64_t d : *t->dims) size = checked_mul(size, d);
  if (size < 2) return std::nullopt;  // a scalar: a constant of the formula (a scale, an epsilon)
  return Table{name, size};
}

std::uint64_t read_parameters(const Context& c, const Node& n, const Layer& layer,
                              const std::map<std::string, std::string>& alias, std::set<std::string>& counted) {
  const auto* movement = std::get_if<DataMovement>(&layer.op);
  if (!movement && !std::holds_alternative<Elementwise>(layer.op)) return 0;
  const bool first_only = movement && movement->func != "Concat";  // Gather, Expand, Tile: the data, not indices
  std::uint64_t elements = 0;
  for (std::size_t i = 0; i < (first_only ? std::min<std::size_t>(1, n.inputs.size()) : n.inputs.size()); ++i) {
    const std::optional<Table> table = learned_table(c, n.inputs[i], alias);
    if (!table || !counted.insert(table->name).second) continue;
    elements = checked_add(elements, table->elements);
  }
  return elements;
}

unsigned learned_operands(const Context& c, const Node& n, const std::map<std::string, std::string>& alias) {
  unsigned bits = 0;
  for (unsigned i = 0; i < 2 && i < n.inputs.size(); ++i)
    if (learned_table(c, n.inputs[i], alias)) bits |= 1u << i;
  return bits;
}

std::uint64_t shared_parameters(const Context& c, const std::vector<const Node*>& nodes, const Layer& layer,
                                const std::map<std::string, std::string>& alias, std::set<std::string>& claimed) {
  if (!std::holds_alternative<Linear>(layer.op) && !std::holds_alternative<Conv2d>(layer.op) &&
      !std::holds_alternative<ConvTranspose2d>(layer.op) && !std::holds_alternative<LayerNorm>(layer.op) &&
      !std::holds_alternative<BatchNorm2d>(layer.op))
    return 0;
  std::uint64_t shared = 0;
  for (const Node* n : nodes)  // (BatchNormalization's operands 3 and 4: its running statistics, buffers)
    for (std::size_t i = 0;
         i < (n->op == "BatchNormalization" ? std::min<std::size_t>(3, n->inputs.size()) : n->inputs.size()); ++i)
      if (const std::optional<Table> table = learned_table(c, n->inputs[i], alias);
          table && !claimed.insert(table->name).second)
        shared = checked_add(shared, table->elements);
  return shared;
}

namespace {

/// Whether sizes `from`, laid out with `strides`, read as sizes `to` without a copy — PyTorch's view rule: the
/// dims of `from` fall into runs contiguous with one another (stride[i] = size[i+1]·stride[i+1]); a view may split
/// or merge dims only within a run, so `to`'s dims must cover each run's elements exactly, in order. Unit dims
/// are free.
bool viewable(const std::vector<std::uint64_t>& from, const std::vector<std::uint64_t>& strides,
              const std::vector<std::uint64_t>& to) {
  std::vector<std::uint64_t> runs;  // elements of each contiguous run
  std::optional<std::size_t> previous;
  for (std::size_t i = 0; i < from.size(); ++i) {
    if (from[i] == 1) continue;
    if (previous && strides[*previous] == checked_mul(from[i], strides[i]))
      runs.back() = checked_mul(runs.back(), from[i]);
    else
      runs.push_back(from[i]);
    previous = i;
  }
  std::vector<std::uint64_t> wanted;  // `to` without its unit dims
  std::copy_if(to.begin(), to.end(), std::back_inserter(wanted), [](std::uint64_t d) { return d != 1; });
  std::size_t k = 0;
  for (std::uint64_t run : runs) {
    std::uint64_t covered = 1;
    while (covered < run && k < wanted.size()) covered = checked_mul(covered, wanted[k++]);
    if (covered != run) return false;
  }
  return k == wanted.size();
}

}  // namespace

bool reshape_copies(const Context& c, const Node& reshape) {
  const std::optional<std::size_t> source = c.producer(reshape.inputs.at(0));
  if (!source || reshape.outputs.empty() || !c.has_dims(reshape.outputs[0])) return false;
  const Node& transpose = c.node(*source);
  if (transpose.op != "Transpose" || !c.has_dims(transpose.inputs.at(0))) return false;
  const std::vector<std::uint64_t>& dims = c.dims(transpose.inputs[0], transpose);
  std::vector<std::uint64_t> row_major(dims.size(), 1);  // the transpose's input's strides
  for (std::size_t i = dims.size(); i-- > 1;) row_major[i - 1] = checked_mul(row_major[i], dims[i]);
  std::vector<std::int64_t> perm;  // absent: the dims reversed
  if (const auto it = transpose.ints.find("perm"); it != transpose.ints.end()) perm = it->second;
  if (perm.empty())
    for (std::size_t i = dims.size(); i-- > 0;) perm.push_back(std::int64_t(i));
  if (perm.size() != dims.size()) return false;  // refused elsewhere
  std::vector<std::uint64_t> sizes, strides;
  for (std::int64_t axis : perm) {
    if (axis < 0 || std::size_t(axis) >= dims.size()) return false;
    sizes.push_back(dims[std::size_t(axis)]);
    strides.push_back(row_major[std::size_t(axis)]);
  }
  return !viewable(sizes, strides, c.dims(reshape.outputs[0], reshape));
}

/// Whether a Dropout node drops anything: a training export's (training_mode a constant true) with a ratio above
/// 0 (absent: 0.5); an inference export's (training_mode absent or a constant false) is the identity. A mode or a
/// ratio decided at run time (a graph input) is refused: reading it as the identity would drop the mask silently.
bool dropping(const Context& c, const Node& n) {
  const auto constant_input = [&](std::size_t i, const char* what) -> std::optional<double> {
    if (n.inputs.size() <= i || n.inputs[i].empty()) return std::nullopt;
    const auto value = c.scalar(n.inputs[i]);
    if (!value)
      c.fail(n, std::string("its ") + what + " '" + n.inputs[i] +
                    "' is not a constant, so whether it drops (and keeps a mask for backward) is decided at run "
                    "time; export with a fixed mode (torch.onnx.export's training=TrainingMode.TRAINING or EVAL)");
    return value;
  };
  const auto training = constant_input(2, "training_mode");
  if (!training || *training == 0) return false;
  return constant_input(1, "ratio").value_or(0.5) > 0;
}

NodeLayer node_layer(const Context& c, const Node& n) {
  if (n.op == "Einsum") {
    const auto gemm = einsum_gemm(c, n);
    if (!gemm) return {.known = false, .layer = std::nullopt};
    return {.layer = Layer{"", *gemm}};
  }
  const auto rule = rules().find(n.op);
  if (rule == rules().end() || n.has_subgraph) return {.known = false, .layer = std::nullopt};
  if (*rule->second.target<decltype(&view)>() != &view) {  // a counted node needs its operands and its output
    const std::size_t operands =
        n.op == "Conv" || n.op == "ConvTranspose" || n.op == "MatMul" || n.op == "Gemm" ? 2 : 1;
    bool complete = n.inputs.size() >= operands && !n.outputs.empty() && !n.outputs[0].empty();
    for (std::size_t i = 0; complete && i < operands; ++i) complete = !n.inputs[i].empty();
    if (!complete) c.fail(n, "needs " + std::to_string(operands) + " input(s) and an output");
    // No counted node works on an empty tensor (each rule divides by its operands' or output's dimensions).
    for (std::size_t i = 0; i < operands; ++i)
      if (c.has_dims(n.inputs[i])) (void)c.elements(n.inputs[i], n);  // throws naming an empty tensor
    if (c.has_dims(n.outputs[0])) (void)c.elements(n.outputs[0], n);
  }
  return {.layer = rule->second(c, n)};
}

}  // namespace ecosim::onnx_import
