// Folding of the small integer tensors an exported graph computes its shapes with (Shape, Gather, Concat,
// ConstantOfShape, Equal, Where, arithmetic, ...), giving the static shapes of Expand and Reshape outputs that
// ONNX shape inference leaves symbolic. Tensors longer than kMaxFoldedElements are not folded.
#include <algorithm>
#include <functional>

#include "ecosim/ops_counter/checked.hpp"
#include "onnx_graph.hpp"

namespace ecosim::onnx_import {

namespace {

using Values = std::vector<std::int64_t>;

/// Elementwise over two integer vectors of equal length or one of length 1.
std::optional<Values> zip(const Values& a, const Values& b,
                          const std::function<std::int64_t(std::int64_t, std::int64_t)>& f) {
  if (a.size() != b.size() && a.size() != 1 && b.size() != 1) return std::nullopt;
  Values out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = f(a[a.size() == 1 ? 0 : i], b[b.size() == 1 ? 0 : i]);
  return out;
}

struct Folder {
  const Graph& graph;
  std::map<std::string, Values> values;
  std::map<std::string, std::vector<std::uint64_t>> shapes;

  const std::vector<std::uint64_t>* dims(const std::string& t) const {
    if (const auto s = shapes.find(t); s != shapes.end()) return &s->second;
    const auto it = graph.tensors.find(t);
    return it != graph.tensors.end() && it->second.dims ? &*it->second.dims : nullptr;
  }
  const Values* value(const Node& n, std::size_t i) const {
    if (i >= n.inputs.size()) return nullptr;
    const auto it = values.find(n.inputs[i]);
    return it == values.end() ? nullptr : &it->second;
  }

  /// The node's output value, when its inputs' values are known.
  std::optional<Values> evaluate(const Node& n) const {
    const Values* a = value(n, 0);
    const Values* b = value(n, 1);
    if (n.op == "Shape") {
      const auto* d = n.inputs.empty() ? nullptr : dims(n.inputs[0]);
      if (!d || d->size() > kMaxFoldedElements) return std::nullopt;
      return Values(d->begin(), d->end());
    }
    if (!a) return std::nullopt;
    if (n.op == "Identity" || n.op == "Cast" || n.op == "Unsqueeze" || n.op == "Squeeze" || n.op == "Reshape")
      return *a;
    if (n.op == "ConstantOfShape") {
      std::uint64_t count = 1;
      for (std::int64_t d : *a) {
        if (d < 0 || (count = checked_mul(count, static_cast<std::uint64_t>(d))) > kMaxFoldedElements)
          return std::nullopt;
      }
      return Values(count, n.fill);
    }
    if (n.op == "Concat") {
      Values out;
      for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const Values* v = value(n, i);
        if (!v || out.size() + v->size() > kMaxFoldedElements) return std::nullopt;
        out.insert(out.end(), v->begin(), v->end());
      }
      return out;
    }
    if (!b) return std::nullopt;
    if (n.op == "Gather") {
      Values out;
      for (std::int64_t i : *b) {
        const std::int64_t size = static_cast<std::int64_t>(a->size()), k = i < 0 ? i + size : i;
        if (k < 0 || k >= size) return std::nullopt;
        out.push_back((*a)[static_cast<std::size_t>(k)]);
      }
      return out;
    }
    if (n.op == "Add") return zip(*a, *b, std::plus<>());
    if (n.op == "Sub") return zip(*a, *b, std::minus<>());
    if (n.op == "Mul") return zip(*a, *b, std::multiplies<>());
    if (n.op == "Equal") return zip(*a, *b, [](std::int64_t x, std::int64_t y) -> std::int64_t { return x == y; });
    if (n.op == "Where") {
      const Values* c = value(n, 2);
      if (!c) return std::nullopt;
      auto chosen = zip(*a, *b, [](std::int64_t cond, std::int64_t x) { return cond ? x : 0; });
      auto other = zip(*a, *c, [](std::int64_t cond, std::int64_t y) { return cond ? 0 : y; });
      if (!chosen || !other || chosen->size() != other->size()) return std::nullopt;
      return zip(*chosen, *other, std::plus<>());
    }
    return std::nullopt;
  }

  /// Expand: the input broadcast to the target; Reshape: the target with 0 (copy) and −1 (the rest) resolved.
  std::optional<std::vector<std::uint64_t>> shape_of(const Node& n) const {
    const Values* target = value(n, 1);
    if (!target) return std::nullopt;  // (so the node has both inputs)
    const auto* in = dims(n.inputs[0]);
    if (!in) return std::nullopt;
    std::vector<std::uint64_t> out;
    if (n.op == "Expand") {
      const std::size_t rank = std::max(in->size(), target->size());
      for (std::size_t i = 0; i < rank; ++i) {
        const std::uint64_t x = i + in->size() >= rank ? (*in)[i + in->size() - rank] : 1;
        const std::int64_t y = i + target->size() >= rank ? (*target)[i + target->size() - rank] : 1;
        if (y < 0 || (x != 1 && y != 1 && static_cast<std::uint64_t>(y) != x)) return std::nullopt;
        out.push_back(x == 1 ? static_cast<std::uint64_t>(y) : x);
      }
      return out;
    }
    std::uint64_t total = 1, known = 1;
    for (std::uint64_t d : *in) total = checked_mul(total, d);
    std::optional<std::size_t> rest;
    for (std::size_t i = 0; i < target->size(); ++i) {
      const std::int64_t d = (*target)[i];
      if (d == -1 && !rest) {
        rest = i;
        out.push_back(1);
        continue;
      }
      if (d < 0 || (d == 0 && i >= in->size())) return std::nullopt;
      out.push_back(d == 0 ? (*in)[i] : static_cast<std::uint64_t>(d));
      known = checked_mul(known, out.back());
    }
    if (known == 0 || (rest ? total % known : total != known)) return std::nullopt;
    if (rest) out[*rest] = total / known;
    return out;
  }
};

}  // namespace

std::map<std::string, std::vector<std::uint64_t>> fold_shapes(Graph& graph) {
  Folder f{graph, {}, {}};
  for (const auto& [name, t] : graph.tensors)
    if (t.values) f.values[name] = *t.values;
  for (const Node& n : graph.nodes) {
    if (n.outputs.empty() || n.outputs[0].empty()) continue;
    const std::string& out = n.outputs[0];
    if (!f.values.contains(out))
      if (auto v = f.evaluate(n)) {
        f.values[out] = std::move(*v);
        graph.folded.insert(out);
      }
    if ((n.op == "Expand" || n.op == "Reshape") && !f.dims(out))
      if (auto s = f.shape_of(n)) f.shapes[out] = std::move(*s);
  }
  return f.shapes;
}

}  // namespace ecosim::onnx_import
