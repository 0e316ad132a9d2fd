// The shape evaluator's rule for ScatterND (onnx_eval.hpp): the data's shape, and where data, indices and updates
// are known, the data with the indexed slices replaced (reduction "none" only) — PyTorch's slice assignment on a
// tensor built from shapes (Swin's shifted-window mask, `mask[h0:h1, w0:w1] = count`) exports as one.
#include <fmt/core.h>

#include "onnx_eval.hpp"

namespace ecosim::onnx_import {

namespace {

void scatter_nd(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  const Values *data = e.values(n, 0), *updates = e.values(n, 2);
  const auto indices = e.ints(n, 1);
  const Dims *index_dims = e.dims(n, 1), *update_dims = e.dims(n, 2);
  const auto reduction = n.strings.find("reduction");
  if (!data || !updates || !indices || !index_dims || !update_dims || index_dims->empty() ||
      (reduction != n.strings.end() && reduction->second != "none") || data->real != updates->real)
    return e.set_dims(n, 0, *d);
  const std::size_t depth = index_dims->back();  // each index tuple addresses a slice of data's trailing axes
  if (depth == 0 || depth > d->size())
    e.fail(n, fmt::format("index tuples of {} for data of rank {}", depth, d->size()));
  std::size_t slice = 1;
  for (std::size_t a = depth; a < d->size(); ++a) slice *= (*d)[a];
  const std::size_t tuples = indices->size() / depth;
  if (updates->size() != tuples * slice) e.fail(n, "the updates do not match the indexed slices");
  Values v = *data;
  for (std::size_t t = 0; t < tuples; ++t) {
    std::size_t offset = 0;
    for (std::size_t a = 0; a < depth; ++a) {
      std::int64_t i = (*indices)[t * depth + a];
      const auto size = static_cast<std::int64_t>((*d)[a]);
      if (i < -size || i >= size) e.fail(n, fmt::format("index {} out of range for axis {} of {}", i, a, size));
      offset = offset * (*d)[a] + static_cast<std::size_t>(i < 0 ? i + size : i);
    }
    for (std::size_t k = 0; k < slice; ++k) {
      if (v.real)
        v.reals[offset * slice + k] = updates->reals[t * slice + k];
      else
        v.ints[offset * slice + k] = updates->ints[t * slice + k];
    }
  }
  e.set_values(n, 0, *d, std::move(v));
}

}  // namespace

void add_scatter_rules(Rules& rules) { rules["ScatterND"] = scatter_nd; }

}  // namespace ecosim::onnx_import
