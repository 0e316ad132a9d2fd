// The importer's view of a graph: shapes (ONNX inference's and the shape evaluator's, onnx_shape_eval.cpp),
// consumers and constants.
#include "ecosim/ops_counter/checked.hpp"
#include "onnx_convert.hpp"
#include "onnx_shape_eval.hpp"

namespace ecosim::onnx_import {

Context::Context(const Graph& graph, const std::string& origin) : graph_(graph), origin_(origin) {
  for (const auto& [name, t] : graph.tensors)
    if (t.dims) dims_[name] = *t.dims;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& in : graph.nodes[i].inputs)
      if (!in.empty()) consumers_[in].push_back(i);
    for (const std::string& out : graph.nodes[i].outputs)
      if (!out.empty()) producers_[out] = i;
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

const Tensor* Context::tensor(const std::string& name) const {
  const auto it = graph_.tensors.find(name);
  return it == graph_.tensors.end() ? nullptr : &it->second;
}

std::optional<double> Context::scalar(const std::string& tensor) const {
  const auto it = graph_.tensors.find(tensor);
  if (it == graph_.tensors.end()) return std::nullopt;
  const Tensor& t = it->second;
  if (t.scalar) return t.scalar;
  // a one-element value the shape evaluator folded: a scale computed from shapes ((C // heads) ** -0.5 as a Pow,
  // 1/√width as PyTorch 2's scaled_dot_product_attention writes it)
  if (t.values && t.values->size() == 1) return t.values->at(0);
  return std::nullopt;
}

const std::vector<std::size_t>& Context::consumers(const std::string& tensor) const {
  static const std::vector<std::size_t> none;
  const auto it = consumers_.find(tensor);
  return it == consumers_.end() ? none : it->second;
}

std::optional<std::size_t> Context::producer(const std::string& tensor) const {
  const auto it = producers_.find(tensor);
  if (it == producers_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::size_t> Context::sole_consumer(const std::string& tensor) const {
  const std::vector<std::size_t>& readers = consumers(tensor);
  if (readers.size() != 1) return std::nullopt;
  return readers[0];
}

}  // namespace ecosim::onnx_import
