// The shape evaluator's rules for the ops that compute on activations, where ONNX inference leaves a gap: the
// ops that keep their input's shape (activations, Softmax, the normalisations, Dropout), MatMul (batched,
// broadcast), Gemm, Einsum (explicit output), Conv and pooling (explicit and automatic pads, ceil mode), the global
// pools and the reductions (axes as an attribute or, from opset 18, an input), Resize and Upsample (sizes or
// scales).
#include <fmt/core.h>

#include <cmath>
#include <map>
#include <set>

#include "ecosim/ops_counter/variant_registry.hpp"
#include "onnx_eval.hpp"

namespace ecosim::onnx_import {

namespace {

void keep_shape(Evaluator& e, const Node& n) {
  if (const Dims* d = e.dims(n, 0)) e.set_dims(n, 0, *d);
}

void matmul(Evaluator& e, const Node& n) {
  const Dims *a = e.dims(n, 0), *b = e.dims(n, 1);
  if (!a || !b) return;
  if (a->empty() || b->empty()) e.fail(n, "MatMul of a scalar");
  // a vector operand is promoted to a matrix and its added axis removed from the result
  const Dims x = a->size() == 1 ? Dims{1, (*a)[0]} : *a, y = b->size() == 1 ? Dims{(*b)[0], 1} : *b;
  if (x.back() != y[y.size() - 2])
    e.fail(n, fmt::format("inner dimensions of {} and {} differ", dims_text(*a), dims_text(*b)));
  const auto batch = broadcast(Dims(x.begin(), x.end() - 2), Dims(y.begin(), y.end() - 2));
  if (!batch) e.fail(n, fmt::format("batch dimensions of {} and {} do not broadcast", dims_text(*a), dims_text(*b)));
  Dims out = *batch;
  if (a->size() > 1) out.push_back(x[x.size() - 2]);
  if (b->size() > 1) out.push_back(y.back());
  e.set_dims(n, 0, out);
}

void gemm(Evaluator& e, const Node& n) {
  const Dims *a = e.dims(n, 0), *b = e.dims(n, 1);
  if (!a || !b) return;
  if (a->size() != 2 || b->size() != 2) e.fail(n, "Gemm operands must be matrices");
  const bool ta = int_attribute(n, "transA", 0) != 0, tb = int_attribute(n, "transB", 0) != 0;
  if ((ta ? (*a)[0] : (*a)[1]) != (tb ? (*b)[1] : (*b)[0])) e.fail(n, "inner dimensions differ");
  e.set_dims(n, 0, {ta ? (*a)[1] : (*a)[0], tb ? (*b)[0] : (*b)[1]});
}

/// Conv, MaxPool, AveragePool: per spatial axis ⌊(in + pads − dilation·(k − 1) − 1) / stride⌋ + 1 (⌈⌉ in ceil
/// mode), or with auto_pad SAME_* ⌈in / stride⌉ and VALID ⌈(in − dilation·(k − 1)) / stride⌉.
void window(Evaluator& e, const Node& n) {
  const Dims* x = e.dims(n, 0);
  if (!x || x->size() < 3) return;
  const std::size_t spatial = x->size() - 2;
  Dims out{(*x)[0], (*x)[1]};
  std::vector<std::int64_t> kernel;
  if (n.op == "Conv") {
    const Dims* w = e.dims(n, 1);
    if (!w || w->size() != x->size()) return;
    out[1] = (*w)[0];
    kernel.assign(w->begin() + 2, w->end());
  }
  auto list = [&](const char* key, std::size_t length, std::int64_t fallback) {
    const auto it = n.ints.find(key);
    std::vector<std::int64_t> v = it == n.ints.end() ? std::vector<std::int64_t>(length, fallback) : it->second;
    if (v.size() != length) e.fail(n, fmt::format("{} has {} entries, not {}", key, v.size(), length));
    return v;
  };
  if (const auto it = n.ints.find("kernel_shape"); it != n.ints.end() || kernel.empty())
    kernel = list("kernel_shape", spatial, 1);
  if (kernel.size() != spatial) e.fail(n, "kernel rank differs from the input's");
  const auto strides = list("strides", spatial, 1), dilations = list("dilations", spatial, 1);
  const auto pads = list("pads", 2 * spatial, 0);
  const auto mode = n.strings.find("auto_pad");
  const std::string auto_pad = mode == n.strings.end() ? "NOTSET" : mode->second;
  const bool ceil_mode = int_attribute(n, "ceil_mode", 0) != 0;
  for (std::size_t i = 0; i < spatial; ++i) {
    const auto in = static_cast<std::int64_t>((*x)[i + 2]);
    const std::int64_t extent = dilations[i] * (kernel[i] - 1) + 1, s = strides[i];
    if (s <= 0 || extent <= 0) e.fail(n, "non-positive stride, dilation or kernel");
    std::int64_t size;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      size = (in + s - 1) / s;
    } else {
      const std::int64_t span = in + (auto_pad == "VALID" ? 0 : pads[i] + pads[i + spatial]) - extent;
      if (span < 0) e.fail(n, fmt::format("the window is larger than the padded input on axis {}", i + 2));
      size = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    }
    out.push_back(static_cast<std::uint64_t>(size));
  }
  e.set_dims(n, 0, out);
}

void global_pool(Evaluator& e, const Node& n) {
  const Dims* x = e.dims(n, 0);
  if (!x || x->size() < 2) return;
  Dims out(x->begin(), x->begin() + 2);
  out.resize(x->size(), 1);
  e.set_dims(n, 0, out);
}

/// ReduceMean/Sum/Max/Min/Prod: axes from the attribute or (opset ≥ 18) input 1; none = all axes unless
/// noop_with_empty_axes.
void reduce(Evaluator& e, const Node& n) {
  const Dims* x = e.dims(n, 0);
  if (!x) return;
  std::vector<std::int64_t> axes;
  if (const auto it = n.ints.find("axes"); it != n.ints.end()) {
    axes = it->second;
  } else if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    auto v = e.ints(n, 1);
    if (!v) return;
    axes = *v;
  }
  std::vector<bool> reduced(x->size(), axes.empty() && int_attribute(n, "noop_with_empty_axes", 0) == 0);
  for (std::int64_t a : axes) {
    const auto k = normalise_axis(a, x->size());
    if (!k) e.fail(n, fmt::format("axis {} out of range", a));
    reduced[*k] = true;
  }
  const bool keep = int_attribute(n, "keepdims", 1) != 0;
  Dims out;
  for (std::size_t i = 0; i < x->size(); ++i)
    if (!reduced[i] || keep) out.push_back(reduced[i] ? 1 : (*x)[i]);
  e.set_dims(n, 0, out);
}

/// Einsum with an explicit output ("i,j->ij", "bhqd,bhkd->bhqk"): each output letter's dimension, the same
/// wherever the letter appears among the inputs. Ellipses and implicit outputs are left to ONNX inference.
void einsum(Evaluator& e, const Node& n) {
  const auto it = n.strings.find("equation");
  if (it == n.strings.end()) return;
  std::string equation;
  for (char ch : it->second)
    if (ch != ' ') equation += ch;
  const auto arrow = equation.find("->");
  if (arrow == std::string::npos || equation.find('.') != std::string::npos) return;
  std::map<char, std::uint64_t> size;
  std::size_t input = 0, axis = 0;
  for (std::size_t i = 0; i <= arrow; ++i) {
    const Dims* d = e.dims(n, input);
    if (!d) return;
    if (i == arrow || equation[i] == ',') {
      if (axis != d->size()) e.fail(n, fmt::format("operand {} has rank {}, the equation {}", input, d->size(), axis));
      ++input;
      axis = 0;
      continue;
    }
    if (axis >= d->size()) e.fail(n, fmt::format("operand {} has rank {}, below the equation's", input, d->size()));
    const std::uint64_t dim = (*d)[axis++];
    const auto [entry, added] = size.emplace(equation[i], dim);
    if (!added && entry->second != dim && dim != 1 && entry->second != 1)
      e.fail(n, fmt::format("index '{}' is {} and {}", equation[i], entry->second, dim));
    entry->second = std::max(entry->second, dim);
  }
  Dims out;
  for (std::size_t i = arrow + 2; i < equation.size(); ++i) {
    const auto s = size.find(equation[i]);
    if (s == size.end()) e.fail(n, fmt::format("output index '{}' is on no input", equation[i]));
    out.push_back(s->second);
  }
  e.set_dims(n, 0, out);
}

/// The rule where the shape is a gap: an output the file or ONNX inference already gives is left to the counting
/// rules' own checks.
Rule only_gaps(void (*rule)(Evaluator&, const Node&)) {
  return [rule](Evaluator& e, const Node& n) {
    if (!e.outputs_known(n)) rule(e, n);
  };
}

}  // namespace

/// Resize (opset 10: X, scales; from 11: X, roi, scales, sizes) and Upsample (opset 9: X, scales): the output
/// sizes where given, else each input axis times its scale, rounded down (ONNX's rule). An export writes the sizes
/// of `F.interpolate(size=...)` as Concat(Slice(Shape(x)), constant): folded, they give the shape ONNX's inference
/// cannot. Opset 18's `axes` and aspect-ratio policies are left to ONNX.
void resize(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d || n.ints.contains("axes") || n.strings.contains("keep_aspect_ratio_policy")) return;
  const auto given = [&n](std::size_t i) { return n.inputs.size() > i && !n.inputs[i].empty(); };
  Dims out;
  if (n.op == "Resize" && given(3)) {
    const auto sizes = e.ints(n, 3);
    if (!sizes) return;
    if (sizes->size() != d->size()) e.fail(n, "sizes differ in number from the input's axes");
    out = dims_from(e, n, *sizes, "size");
  } else {
    const std::size_t at = n.op == "Upsample" || n.inputs.size() == 2 ? 1 : 2;
    const Values* scales = given(at) ? e.values(n, at) : nullptr;
    if (!scales) return;
    if (scales->size() != d->size()) e.fail(n, "scales differ in number from the input's axes");
    std::vector<std::int64_t> sizes;
    for (std::size_t a = 0; a < d->size(); ++a) {
      const double size = std::floor(double((*d)[a]) * scales->at(a));
      if (!(size >= 0 && size <= double(kMaxDimension)))
        e.fail(n, fmt::format("scale {} of axis {} gives no size of 0..{}", scales->at(a), a, kMaxDimension));
      sizes.push_back(static_cast<std::int64_t>(size));
    }
    out = dims_from(e, n, sizes, "size");
  }
  e.set_dims(n, 0, out);
}

void add_shape_rules(Rules& rules) {
  for (const char* op : {"Relu",
                         "Gelu",
                         "Erf",
                         "Exp",
                         "Log",
                         "Tanh",
                         "Sigmoid",
                         "Cos",
                         "Sin",
                         "HardSigmoid",
                         "HardSwish",
                         "LeakyRelu",
                         "Softmax",
                         "LogSoftmax",
                         "Dropout",
                         "LayerNormalization",
                         "BatchNormalization",
                         "Round",
                         "Sign",
                         "Softplus",
                         "Elu",
                         "Selu",
                         "Mish",
                         "PRelu"})
    rules[op] = only_gaps(keep_shape);
  rules["MatMul"] = only_gaps(matmul);
  rules["Gemm"] = only_gaps(gemm);
  rules["Einsum"] = only_gaps(einsum);
  for (const char* op : {"Conv", "MaxPool", "AveragePool"}) rules[op] = only_gaps(window);
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) rules[op] = only_gaps(global_pool);
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd"})
    rules[op] = only_gaps(reduce);
  for (const char* op : {"Resize", "Upsample"}) rules[op] = only_gaps(resize);
}

}  // namespace ecosim::onnx_import
