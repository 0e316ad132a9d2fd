// The shape evaluator's walk (onnx_shape_eval.hpp): each node in execution order through its op's rule
// (onnx_eval_movement.cpp, onnx_eval_arithmetic.cpp, onnx_eval_shapes.cpp), the checked recording of shapes and values,
// and the chain of ops that explains a tensor left without a static shape.
#include "onnx_shape_eval.hpp"

#include <fmt/core.h>

#include <cmath>
#include <set>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"
#include "onnx_eval.hpp"

namespace ecosim::onnx_import {

namespace {

const Rules& rules() {
  static const Rules table = [] {
    Rules r;
    add_movement_rules(r);
    add_arithmetic_rules(r);
    add_scatter_rules(r);
    add_shape_rules(r);
    return r;
  }();
  return table;
}

/// Ranks of computed shapes are at most this (networks use a handful; the bound keeps a hostile chain of
/// Unsqueezes from growing the shapes it stores).
constexpr std::size_t kMaxRank = 64;
/// Chains longer than this are cut ("…"): the first few ops name the computation.
constexpr std::size_t kMaxChainOps = 12;

}  // namespace

std::uint64_t element_count(const Dims& dims) {
  std::uint64_t n = 1;
  for (std::uint64_t d : dims) n = checked_mul(n, d);
  return n;
}

std::optional<Dims> broadcast(const Dims& a, const Dims& b) {
  Dims out = a.size() >= b.size() ? a : b;
  const Dims& shorter = a.size() >= b.size() ? b : a;
  const std::size_t offset = out.size() - shorter.size();
  for (std::size_t i = 0; i < shorter.size(); ++i) {
    std::uint64_t& x = out[offset + i];
    if (x == shorter[i] || shorter[i] == 1) continue;
    if (x != 1) return std::nullopt;
    x = shorter[i];
  }
  return out;
}

std::size_t broadcast_index(const Dims& in, const Dims& out, std::size_t flat) {
  std::size_t index = 0, stride = 1;
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::size_t axis = out.size() - 1 - k;
    const std::size_t coordinate = flat % out[axis];
    flat /= out[axis];
    if (k >= in.size()) continue;
    const std::size_t size = in[in.size() - 1 - k];
    if (size != 1) index += coordinate * stride;
    stride *= size;
  }
  return index;
}

std::optional<std::size_t> normalise_axis(std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r) return std::nullopt;
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

std::int64_t int_attribute(const Node& n, const std::string& key, std::int64_t fallback) {
  const auto it = n.ints.find(key);
  return it == n.ints.end() || it->second.empty() ? fallback : it->second[0];
}

Dims dims_from(Evaluator& e, const Node& n, const std::vector<std::int64_t>& values, const char* what) {
  Dims d;
  for (std::int64_t x : values) {
    if (x < 0 || static_cast<std::uint64_t>(x) > kMaxDimension)
      e.fail(n, fmt::format("{} {} is outside 0..{}", what, x, kMaxDimension));
    d.push_back(static_cast<std::uint64_t>(x));
  }
  return d;
}

std::string dims_text(const Dims& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

const Dims* Evaluator::known_dims(const std::string& t) const {
  const auto it = graph_.tensors.find(t);
  return it == graph_.tensors.end() || !it->second.dims ? nullptr : &*it->second.dims;
}

bool Evaluator::has_values(const std::string& t) const {
  const auto it = graph_.tensors.find(t);
  return it != graph_.tensors.end() && it->second.values;
}

const Dims* Evaluator::dims(const Node& n, std::size_t i) const {
  return i < n.inputs.size() && !n.inputs[i].empty() ? known_dims(n.inputs[i]) : nullptr;
}

const Values* Evaluator::values(const Node& n, std::size_t i) const {
  if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
  const auto it = graph_.tensors.find(n.inputs[i]);
  return it == graph_.tensors.end() || !it->second.values ? nullptr : &*it->second.values;
}

std::optional<Band> Evaluator::band(const Node& n, std::size_t i) const {
  if (const Values* v = values(n, i)) {
    if (v->size() == 1) return Band{v->real, v->at(0), v->at(0), 0};
    const Dims* d = dims(n, i);
    return d ? band_of(*v, *d) : std::nullopt;  // a folded mask broadcast or combined past the budget
  }
  if (i >= n.inputs.size() || n.inputs[i].empty()) return std::nullopt;
  const auto it = graph_.tensors.find(n.inputs[i]);
  return it == graph_.tensors.end() ? std::nullopt : it->second.band;
}

bool Evaluator::outputs_known(const Node& n) const {
  for (const std::string& out : n.outputs)
    if (!out.empty() && !known_dims(out)) return false;
  return true;
}

std::optional<std::vector<std::int64_t>> Evaluator::ints(const Node& n, std::size_t i) const {
  const Values* v = values(n, i);
  if (!v) return std::nullopt;
  if (!v->real) return v->ints;
  std::vector<std::int64_t> out;
  for (double x : v->reals) {
    if (!(std::abs(x) < 9.0e18) || x != std::floor(x)) return std::nullopt;
    out.push_back(static_cast<std::int64_t>(x));
  }
  return out;
}

std::optional<std::int64_t> Evaluator::scalar_int(const Node& n, std::size_t i) const {
  auto v = ints(n, i);
  if (!v || v->size() != 1) return std::nullopt;
  return (*v)[0];
}

void Evaluator::pass_constant(const Node& n, std::size_t in, std::size_t out) {
  if (in >= n.inputs.size() || out >= n.outputs.size() || n.inputs[in].empty() || n.outputs[out].empty()) return;
  const auto it = graph_.tensors.find(n.inputs[in]);
  if (it == graph_.tensors.end() || !it->second.constant) return;
  const Tensor& source = it->second;
  Tensor& t = graph_.tensors[n.outputs[out]];
  t.constant = true;
  t.external = source.external;
  t.scalar = source.scalar;
  t.causal_additive = source.causal_additive;
  t.causal_keep = source.causal_keep;
  t.causal_drop = source.causal_drop;
}

void Evaluator::carry_constant(const Node& n) {
  static const std::set<std::string, std::less<>> kLayoutOps = {"Transpose", "Reshape", "Squeeze",
                                                                "Unsqueeze", "Flatten", "Cast"};
  if (!kLayoutOps.contains(n.op) || n.inputs.empty() || n.outputs.size() != 1 || n.outputs[0].empty()) return;
  const auto source = graph_.tensors.find(n.inputs[0]);
  if (source == graph_.tensors.end() || !source->second.constant) return;
  const bool external = source->second.external;
  Tensor& t = graph_.tensors[n.outputs[0]];
  t.constant = true;
  t.external = t.external || external;
}

void Evaluator::fail(const Node& n, const std::string& what) const {
  throw Error("ONNX model '" + origin_ + "', node '" + n.name + "' (" + n.op + "): " + what);
}

void Evaluator::set_dims(const Node& n, std::size_t out, Dims dims) {
  if (out >= n.outputs.size() || n.outputs[out].empty()) return;
  const std::string& t = n.outputs[out];
  if (dims.size() > kMaxRank) fail(n, fmt::format("output '{}' would have rank {} above {}", t, dims.size(), kMaxRank));
  std::uint64_t count = 1;
  for (std::uint64_t d : dims) {
    if (d > kMaxDimension) fail(n, fmt::format("output '{}' would have dimension {} above {}", t, d, kMaxDimension));
    if (__builtin_mul_overflow(count, d, &count))
      fail(n, fmt::format("output '{}' would have more elements than 64 bits count", t));
  }
  Tensor& tensor = graph_.tensors[t];
  if (tensor.dims) {
    if (*tensor.dims != dims)
      fail(n, fmt::format("output '{}' computes to shape {}, but the file or ONNX inference gives it {}", t,
                          dims_text(dims), dims_text(*tensor.dims)));
    return;
  }
  tensor.dims = std::move(dims);
  found_.insert(t);
}

void Evaluator::set_values(const Node& n, std::size_t out, const Dims& dims, Values v) {
  set_dims(n, out, dims);
  if (out >= n.outputs.size() || n.outputs[out].empty()) return;
  if (v.size() != element_count(dims)) fail(n, "internal: a folded value does not match its shape");
  if (v.size() > kMaxFoldedElements || folded_elements_ + v.size() > kMaxFoldedTotal) return;
  folded_elements_ += v.size();
  graph_.folded.insert(n.outputs[out]);
  Tensor& t = graph_.tensors[n.outputs[out]];
  t.values = std::move(v);
  const Values& folded = *t.values;  // a mask built from shapes may be causal
  classify_causal(
      t, folded.size(), [&folded](std::uint64_t e) { return static_cast<float>(folded.at(e)); }, !folded.real);
}

void Evaluator::set_band(const Node& n, std::size_t out, const Dims& dims, const Band& band) {
  set_dims(n, out, dims);
  if (out >= n.outputs.size() || n.outputs[out].empty() || element_count(dims) <= kMaxFoldedElements) return;
  graph_.folded.insert(n.outputs[out]);
  Tensor& t = graph_.tensors[n.outputs[out]];
  t.band = band;
  classify_causal(t, band);
}

std::set<std::string> Evaluator::run() {
  // Values folded by an earlier pass are folded again (within this pass's budget); a constant whose stored
  // elements do not fill its shape has no value.
  for (const std::string& t : graph_.folded) {
    Tensor& folded = graph_.tensors[t];
    folded.values.reset();
    folded.band.reset();
    folded.causal_additive = folded.causal_keep = folded.causal_drop = false;
  }
  graph_.folded.clear();
  for (auto& [name, t] : graph_.tensors)
    if (t.values && (!t.dims || t.values->size() != element_count(*t.dims))) t.values.reset();
  graph_.blocked_by.clear();
  for (const Node& n : graph_.nodes) {
    const auto rule = rules().find(n.op);
    if (rule != rules().end() && !n.has_subgraph) rule->second(*this, n);
    carry_constant(n);
    // What kept an output unknown: the first input without a shape, else the last one without a value (the
    // shape, pads, bounds an op reads come after its data).
    for (const std::string& out : n.outputs) {
      if (out.empty() || (known_dims(out) && has_values(out))) continue;
      std::string by;
      for (std::size_t i = 0; i < n.inputs.size() && by.empty(); ++i)
        if (!n.inputs[i].empty() && !known_dims(n.inputs[i])) by = n.inputs[i];
      for (std::size_t i = n.inputs.size(); rule != rules().end() && i-- > 0 && by.empty();)
        if (!n.inputs[i].empty() && !has_values(n.inputs[i])) by = n.inputs[i];
      graph_.blocked_by[out] = by;
    }
  }
  return std::move(found_);
}

std::set<std::string> evaluate_shapes(Graph& graph, const std::string& origin) {
  return Evaluator(graph, origin).run();
}

std::string unknown_shape_chain(const Graph& graph, const std::string& tensor) {
  std::map<std::string, const Node*> producer;
  for (const Node& n : graph.nodes)
    for (const std::string& out : n.outputs) producer[out] = &n;
  std::string chain, t = tensor;
  for (std::size_t step = 0;; ++step) {
    const auto p = producer.find(t);
    const auto info = graph.tensors.find(t);
    const bool shaped = info != graph.tensors.end() && info->second.dims;
    if (p == producer.end())
      return chain + "'" + t + "', " +
             (shaped ? "a graph input or weight whose value is not stored" : "a graph input without a static shape");
    if (step == kMaxChainOps) return chain + "…";
    chain += p->second->op;
    const auto by = graph.blocked_by.find(t);
    if (by == graph.blocked_by.end() || by->second.empty()) {
      if (shaped) return chain + " (its value is not evaluated)";
      return chain + (rules().contains(p->second->op) ? " (its inputs do not give it one)" : " (no shape rule for it)");
    }
    chain += " ← ";
    t = by->second;
  }
}

}  // namespace ecosim::onnx_import
