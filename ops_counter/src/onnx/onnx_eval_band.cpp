// Bands through the shape evaluator's rules: when an op's output stays two values split at a diagonal (or one
// value), so a causal mask built from shapes over a long sequence is recognised without folding its elements.
#include "onnx_eval.hpp"

namespace ecosim::onnx_import {

bool band_carries(const Band& band, const Dims& in, const Dims& out) {
  if (band.uniform()) return true;
  return in.size() >= 2 && out.size() >= 2 && in[in.size() - 2] == out[out.size() - 2] && in.back() == out.back();
}

std::optional<Band> elementwise_band(const Evaluator& e, const Node& n, const Dims& out, bool real,
                                     const std::function<std::optional<double>(const std::vector<double>&)>& value) {
  std::vector<double> upper, lower;
  std::optional<std::int64_t> offset;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {  // every input present: `value` reads them by position
    const std::optional<Band> b = e.band(n, i);
    const Dims* d = e.dims(n, i);
    if (!b || !d || !band_carries(*b, *d, out)) return std::nullopt;
    if (!b->uniform()) {
      if (offset && *offset != b->offset) return std::nullopt;
      offset = b->offset;
    }
    upper.push_back(b->upper);
    lower.push_back(b->lower);
  }
  if (upper.empty()) return std::nullopt;
  const std::optional<double> u = value(upper), l = value(lower);
  if (!u || !l) return std::nullopt;
  return Band{real, *u, *l, offset.value_or(0)};
}

}  // namespace ecosim::onnx_import
