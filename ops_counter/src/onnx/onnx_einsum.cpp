// An Einsum node counted as the batched GEMM it is (two operands, an explicit output, no ellipsis): fvcore counts
// einsum MACs, and torch.outer (a Llama's rotary angles) exports as one.
#include <map>

#include "ecosim/ops_counter/checked.hpp"
#include "onnx_convert.hpp"

namespace ecosim::onnx_import {

std::optional<Matmul> einsum_gemm(const Context& c, const Node& n) {
  const auto it = n.strings.find("equation");
  if (it == n.strings.end() || n.inputs.size() != 2 || n.inputs[0].empty() || n.inputs[1].empty()) return std::nullopt;
  std::string equation;
  for (char ch : it->second)
    if (ch != ' ') equation += ch;
  const auto comma = equation.find(','), arrow = equation.find("->");
  if (comma == std::string::npos || arrow == std::string::npos || comma > arrow ||
      equation.find('.') != std::string::npos)
    return std::nullopt;
  const std::string a = equation.substr(0, comma), b = equation.substr(comma + 1, arrow - comma - 1),
                    out = equation.substr(arrow + 2);
  std::map<char, std::uint64_t> size;
  for (const auto& [letters, input] : {std::pair{a, n.inputs[0]}, std::pair{b, n.inputs[1]}}) {
    const auto& d = c.dims(input, n);
    if (d.size() != letters.size()) c.fail(n, "an operand's rank differs from its equation's");
    for (std::size_t i = 0; i < d.size(); ++i) size[letters[i]] = std::max(size[letters[i]], d[i]);
  }
  Matmul g{.batch = 1, .m = 1, .n = 1, .k = 1};
  for (const auto& [letter, extent] : size) {
    const bool in_a = a.find(letter) != std::string::npos, in_b = b.find(letter) != std::string::npos,
               kept = out.find(letter) != std::string::npos;
    std::uint64_t& dim = in_a && in_b ? (kept ? g.batch : g.k) : in_a ? g.m : g.n;
    if (!kept && !(in_a && in_b)) return std::nullopt;  // summed within one operand: not a GEMM
    dim = checked_mul(dim, extent);
  }
  return g;
}

}  // namespace ecosim::onnx_import
