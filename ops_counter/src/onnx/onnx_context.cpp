// The importer's view of a graph: shapes (ONNX inference's, with ecosim's rules for elementwise outputs it left
// unknown: a unary op keeps its input's shape, a binary one broadcasts), consumers and constants.
#include "ecosim/ops_counter/checked.hpp"
#include "onnx_convert.hpp"
#include "onnx_shape_eval.hpp"

namespace ecosim::onnx_import {

namespace {
const std::set<std::string> kShapeKeeping = {"Relu",      "Sqrt",        "Exp",       "Erf",
                                             "Tanh",      "Sigmoid",     "HardSwish", "Gelu",
                                             "Identity",  "Softmax",     "Dropout",   "LayerNormalization",
                                             "LeakyRelu", "HardSigmoid", "Neg",       "BatchNormalization"};
const std::set<std::string> kBroadcasting = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};

/// NumPy broadcasting of two shapes; none when they do not broadcast.
std::optional<std::vector<std::uint64_t>> broadcast(std::vector<std::uint64_t> a, std::vector<std::uint64_t> b) {
  if (a.size() < b.size()) std::swap(a, b);
  const std::size_t offset = a.size() - b.size();
  for (std::size_t i = 0; i < b.size(); ++i) {
    std::uint64_t& x = a[offset + i];
    if (x == b[i] || b[i] == 1) continue;
    if (x != 1) return std::nullopt;
    x = b[i];
  }
  return a;
}
}  // namespace

Context::Context(const Graph& graph, const std::string& origin) : graph_(graph), origin_(origin) {
  for (const auto& [name, t] : graph.tensors)
    if (t.dims) dims_[name] = *t.dims;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i)
    for (const std::string& in : graph.nodes[i].inputs)
      if (!in.empty()) consumers_[in].push_back(i);
  fill_gaps();
}

void Context::fill_gaps() {
  for (const Node& n : graph_.nodes) {
    if (n.outputs.empty() || n.outputs[0].empty() || dims_.contains(n.outputs[0]) || n.inputs.empty()) continue;
    const auto first = dims_.find(n.inputs[0]);
    if (first == dims_.end()) continue;
    if (kShapeKeeping.contains(n.op)) {
      dims_[n.outputs[0]] = first->second;
    } else if (kBroadcasting.contains(n.op) && n.inputs.size() == 2 && dims_.contains(n.inputs[1])) {
      if (auto out = broadcast(first->second, dims_.at(n.inputs[1]))) dims_[n.outputs[0]] = *out;
    }
  }
}

void Context::fail(const Node& at, const std::string& what) const {
  throw Error("ONNX model '" + origin_ + "', node '" + at.name + "' (" + at.op + "): " + what);
}

const std::vector<std::uint64_t>& Context::dims(const std::string& tensor, const Node& at) const {
  const auto it = dims_.find(tensor);
  if (it == dims_.end())
    fail(at, "tensor '" + tensor + "' has no static shape (" + unknown_shape_chain(graph_, tensor) +
                 "; export with fixed input sizes)");
  return it->second;
}

std::uint64_t Context::elements(const std::string& tensor, const Node& at) const {
  std::uint64_t n = 1;
  for (std::uint64_t d : dims(tensor, at)) n = checked_mul(n, d);
  if (n == 0) fail(at, "tensor '" + tensor + "' is empty");
  return n;
}

bool Context::constant(const std::string& tensor) const {
  const auto it = graph_.tensors.find(tensor);
  return it != graph_.tensors.end() && it->second.constant;
}

std::optional<double> Context::scalar(const std::string& tensor) const {
  const auto it = graph_.tensors.find(tensor);
  return it == graph_.tensors.end() ? std::nullopt : it->second.scalar;
}

const std::vector<std::size_t>& Context::consumers(const std::string& tensor) const {
  static const std::vector<std::size_t> none;
  const auto it = consumers_.find(tensor);
  return it == consumers_.end() ? none : it->second;
}

std::optional<std::size_t> Context::sole_consumer(const std::string& tensor) const {
  const std::vector<std::size_t>& readers = consumers(tensor);
  if (readers.size() != 1) return std::nullopt;
  return readers[0];
}

}  // namespace ecosim::onnx_import
