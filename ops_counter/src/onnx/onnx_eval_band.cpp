// Bands through the shape evaluator's rules: when an op's output stays two values split at a diagonal (or one
// value), so a causal mask built from shapes over a long sequence is recognised without folding its elements.
#include <cmath>

#include "onnx_eval.hpp"

namespace ecosim::onnx_import {

std::optional<Band> band_of(const Values& values, const Dims& dims) {
  if (dims.size() < 2 || values.size() == 0) return std::nullopt;
  const std::uint64_t rows = dims[dims.size() - 2], cols = dims.back();
  if (rows == 0 || cols == 0) return std::nullopt;
  // upper: the top-right corner's value (c − r largest), lower: the bottom-left's (c − r smallest)
  const double upper = values.at(cols - 1), lower = values.at((rows - 1) * cols);
  if (std::isnan(upper) || std::isnan(lower)) return std::nullopt;
  // the offset: the first diagonal of upper values along the first row that has both (any, when none has)
  std::int64_t offset = 0;
  for (std::uint64_t r = 0; r < rows && upper != lower; ++r) {
    std::uint64_t c = 0;
    while (c < cols && values.at(r * cols + c) != upper) ++c;
    if (c > 0 && c < cols) {
      offset = static_cast<std::int64_t>(c) - static_cast<std::int64_t>(r);
      break;
    }
  }
  const Band band{values.real, upper, lower, offset};
  for (std::size_t e = 0; e < values.size(); ++e) {
    const auto r = static_cast<std::int64_t>(e / cols % rows), c = static_cast<std::int64_t>(e % cols);
    if (values.at(e) != (c - r >= offset ? upper : lower)) return std::nullopt;
  }
  return band;
}

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
