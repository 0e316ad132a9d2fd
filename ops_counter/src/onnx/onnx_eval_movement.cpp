// The shape evaluator's rules for the ops that move data (onnx_eval.hpp): each output's shape from its inputs'
// shapes and the values it reads (a Reshape's target, a Slice's bounds, a Tile's repeats, ...), and its value
// where its data input's is known — Identity, Unsqueeze/Squeeze, Reshape, Flatten, Transpose, Concat, Gather,
// Slice, Split, Expand, Tile, Trilu, Pad.
#include <fmt/core.h>

#include <algorithm>

#include "ecosim/ops_counter/variant_registry.hpp"
#include "onnx_eval.hpp"

namespace ecosim::onnx_import {

namespace {

using Ints = std::vector<std::int64_t>;

/// Row-major strides of a shape.
std::vector<std::size_t> strides(const Dims& dims) {
  std::vector<std::size_t> s(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

/// Sets output `out` to `dims` and, when input `from`'s value is known, to the value whose element k is input
/// element index(k) (every data-moving op: Identity, Reshape, Transpose, Slice, Gather, Expand, Tile, ...).
template <typename Index>
void move(Evaluator& e, const Node& n, std::size_t out, const Dims& dims, std::size_t from, Index index) {
  const Values* in = e.values(n, from);
  const std::uint64_t count = element_count(dims);
  if (!in || count > kMaxFoldedElements) return e.set_dims(n, out, dims);
  Values v;
  v.real = in->real;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = index(k);
    if (in->real)
      v.reals.push_back(in->reals[i]);
    else
      v.ints.push_back(in->ints[i]);
  }
  e.set_values(n, out, dims, std::move(v));
}

/// Output 0 holds input 0's elements in their order, as `dims` (a band where it carries).
void same(Evaluator& e, const Node& n, const Dims& dims) {
  const std::optional<Band> band = e.values(n, 0) ? std::nullopt : e.band(n, 0);
  if (band && band_carries(*band, *e.dims(n, 0), dims)) return e.set_band(n, 0, dims, *band);
  move(e, n, 0, dims, 0, [](std::size_t k) { return k; });
}

void identity(Evaluator& e, const Node& n) {
  e.pass_constant(n, 0, 0);
  if (const Dims* d = e.dims(n, 0)) same(e, n, *d);
}

/// Axes from input 1 (opset ≥ 13) or the attribute (older opsets); none when neither is known.
std::optional<Ints> axes_of(Evaluator& e, const Node& n, std::size_t input, const char* attribute) {
  if (auto v = e.ints(n, input)) return v;
  if (input < n.inputs.size() && !n.inputs[input].empty()) return std::nullopt;  // given, value unknown
  const auto it = n.ints.find(attribute);
  if (it != n.ints.end()) return it->second;
  return Ints{};
}

void unsqueeze(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  const auto axes = axes_of(e, n, 1, "axes");
  if (!d || !axes) return;
  const std::size_t rank = d->size() + axes->size();
  std::vector<bool> inserted(rank, false);
  for (std::int64_t a : *axes) {
    const auto k = normalise_axis(a, rank);
    if (!k || inserted[*k]) e.fail(n, fmt::format("axis {} out of range or repeated", a));
    inserted[*k] = true;
  }
  Dims out;
  for (std::size_t i = 0, j = 0; i < rank; ++i) out.push_back(inserted[i] ? 1 : (*d)[j++]);
  same(e, n, out);
}

void squeeze(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  const auto axes = axes_of(e, n, 1, "axes");
  if (!d || !axes) return;
  std::vector<bool> removed(d->size(), axes->empty());
  if (axes->empty())
    for (std::size_t i = 0; i < d->size(); ++i) removed[i] = (*d)[i] == 1;
  for (std::int64_t a : *axes) {
    const auto k = normalise_axis(a, d->size());
    if (!k || (*d)[*k] != 1) e.fail(n, fmt::format("axis {} is not a dimension of size 1", a));
    removed[*k] = true;
  }
  Dims out;
  for (std::size_t i = 0; i < d->size(); ++i)
    if (!removed[i]) out.push_back((*d)[i]);
  same(e, n, out);
}

void reshape(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  const auto target = e.ints(n, 1);
  if (!d || !target) return;
  const bool allow_zero = int_attribute(n, "allowzero", 0) != 0;
  const std::uint64_t total = element_count(*d);
  Dims out;
  std::optional<std::size_t> rest;
  std::uint64_t known = 1;
  for (std::size_t i = 0; i < target->size(); ++i) {
    const std::int64_t t = (*target)[i];
    if (t == -1 && !rest) {
      rest = i;
      out.push_back(1);
      continue;
    }
    if (t == 0 && !allow_zero) {
      if (i >= d->size()) e.fail(n, fmt::format("target dimension {} copies a dimension the input lacks", i));
      out.push_back((*d)[i]);
    } else {
      out.push_back(dims_from(e, n, {t}, "target dimension")[0]);
    }
    if (__builtin_mul_overflow(known, out.back(), &known))
      e.fail(n, fmt::format("target {} has more elements than 64 bits count", dims_text(out)));
  }
  if (rest) {
    if (known == 0 || total % known) e.fail(n, fmt::format("cannot infer −1: {} elements into {}", total, known));
    out[*rest] = total / known;
  } else if (known != total) {
    e.fail(n, fmt::format("target {} does not hold the input's {} elements", dims_text(out), total));
  }
  same(e, n, out);
}

void flatten(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  const auto axis = normalise_axis(int_attribute(n, "axis", 1), d->size() + 1);
  if (!axis) e.fail(n, "axis out of range");
  const Dims head(d->begin(), d->begin() + static_cast<std::ptrdiff_t>(*axis));
  const Dims tail(d->begin() + static_cast<std::ptrdiff_t>(*axis), d->end());
  same(e, n, {element_count(head), element_count(tail)});
}

void transpose(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  Ints perm;
  if (const auto it = n.ints.find("perm"); it != n.ints.end())
    perm = it->second;
  else
    for (std::size_t i = d->size(); i-- > 0;) perm.push_back(static_cast<std::int64_t>(i));
  if (perm.size() != d->size()) e.fail(n, "perm does not list every axis");
  Dims out;
  std::vector<bool> seen(d->size(), false);
  for (std::int64_t p : perm) {
    const auto k = normalise_axis(p, d->size());
    if (!k || seen[*k]) e.fail(n, "perm is not a permutation");
    seen[*k] = true;
    out.push_back((*d)[*k]);
  }
  const auto in_strides = strides(*d);
  move(e, n, 0, out, 0, [&](std::size_t k) {
    std::size_t index = 0;
    for (std::size_t a = out.size(); a-- > 0;) {
      index += (k % out[a]) * in_strides[static_cast<std::size_t>(*normalise_axis(perm[a], d->size()))];
      k /= out[a];
    }
    return index;
  });
}

void concat(Evaluator& e, const Node& n) {
  std::vector<const Dims*> parts;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    const Dims* d = e.dims(n, i);
    if (!d) return;
    parts.push_back(d);
  }
  if (parts.empty()) return;
  const auto axis = normalise_axis(int_attribute(n, "axis", 0), parts[0]->size());
  if (!axis) e.fail(n, "axis out of range");
  Dims out = *parts[0];
  out[*axis] = 0;
  for (const Dims* p : parts) {
    Dims a = *p, b = *parts[0];
    if (a.size() != b.size()) e.fail(n, "inputs of different ranks");
    a[*axis] = b[*axis] = 0;
    if (a != b) e.fail(n, fmt::format("inputs {} and {} differ off the axis", dims_text(*p), dims_text(*parts[0])));
    out[*axis] += (*p)[*axis];
  }
  const std::uint64_t count = element_count(out);
  Values v;
  bool known = count <= kMaxFoldedElements;
  std::vector<const Values*> vals;
  for (std::size_t i = 0; i < n.inputs.size() && known; ++i) {
    if (n.inputs[i].empty()) continue;
    vals.push_back(e.values(n, i));
    known = vals.back() && vals.back()->real == vals[0]->real;
  }
  if (!known) return e.set_dims(n, 0, out);
  // Row-major: for each outer index, the parts' slabs in turn.
  std::uint64_t outer = 1, inner = 1;
  for (std::size_t a = 0; a < *axis; ++a) outer *= out[a];
  for (std::size_t a = *axis + 1; a < out.size(); ++a) inner *= out[a];
  v.real = vals[0]->real;
  for (std::uint64_t o = 0; o < outer; ++o)
    for (std::size_t p = 0; p < parts.size(); ++p) {
      const std::uint64_t slab = (*parts[p])[*axis] * inner;
      for (std::uint64_t k = 0; k < slab; ++k) {
        if (v.real)
          v.reals.push_back(vals[p]->reals[o * slab + k]);
        else
          v.ints.push_back(vals[p]->ints[o * slab + k]);
      }
    }
  e.set_values(n, 0, out, std::move(v));
}

void gather(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  const Dims* idx = e.dims(n, 1);
  if (!d || !idx) return;
  const auto axis = normalise_axis(int_attribute(n, "axis", 0), d->size());
  if (!axis) e.fail(n, "axis out of range");
  Dims out(d->begin(), d->begin() + static_cast<std::ptrdiff_t>(*axis));
  out.insert(out.end(), idx->begin(), idx->end());
  out.insert(out.end(), d->begin() + static_cast<std::ptrdiff_t>(*axis) + 1, d->end());
  const auto indices = e.ints(n, 1);
  if (!indices) return e.set_dims(n, 0, out);
  const auto size = static_cast<std::int64_t>((*d)[*axis]);
  Ints resolved;
  for (std::int64_t i : *indices) {
    if (i < -size || i >= size) e.fail(n, fmt::format("index {} out of range for a dimension of {}", i, size));
    resolved.push_back(i < 0 ? i + size : i);
  }
  std::uint64_t inner = 1;
  for (std::size_t a = *axis + 1; a < d->size(); ++a) inner *= (*d)[a];
  const std::uint64_t block = resolved.size() * inner;
  move(e, n, 0, out, 0, [&](std::size_t k) {
    const std::size_t o = k / block, j = (k % block) / inner, r = k % inner;
    return (o * static_cast<std::size_t>(size) + static_cast<std::size_t>(resolved[j])) * inner + r;
  });
}

void slice(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  const auto starts = e.ints(n, 1), ends = e.ints(n, 2);
  if (!d || !starts || !ends) return;
  Ints axes, steps(starts->size(), 1);
  if (n.inputs.size() > 3 && !n.inputs[3].empty()) {
    auto a = e.ints(n, 3);
    if (!a) return;
    axes = *a;
  } else {
    for (std::size_t i = 0; i < starts->size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  if (n.inputs.size() > 4 && !n.inputs[4].empty()) {
    auto s = e.ints(n, 4);
    if (!s) return;
    steps = *s;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() || steps.size() != starts->size())
    e.fail(n, "starts, ends, axes and steps differ in length");
  Dims out = *d;
  Ints first(d->size(), 0), step(d->size(), 1);
  std::vector<bool> seen(d->size(), false);
  for (std::size_t i = 0; i < starts->size(); ++i) {
    const auto axis = normalise_axis(axes[i], d->size());
    if (!axis || seen[*axis]) e.fail(n, fmt::format("axis {} out of range or repeated", axes[i]));
    seen[*axis] = true;
    const auto dim = static_cast<std::int64_t>((*d)[*axis]);
    const std::int64_t s = steps[i];
    if (s == 0) e.fail(n, "step 0");
    // ONNX: negative indices count from the end; then clamped to [0, dim] (step > 0) or [−1, dim − 1] (step < 0)
    auto resolve = [dim, s](std::int64_t v) {
      if (v < 0) v = v < -dim ? -dim - 1 : v + dim;  // (saturating: INT64_MIN stays below −dim)
      return s > 0 ? std::clamp(v, std::int64_t{0}, dim) : std::clamp(v, std::int64_t{-1}, dim - 1);
    };
    const std::int64_t b = resolve((*starts)[i]), en = resolve((*ends)[i]);
    const std::int64_t span = s > 0 ? en - b : b - en, stride = s > 0 ? s : (s == INT64_MIN ? INT64_MAX : -s);
    out[*axis] = span <= 0 ? 0 : static_cast<std::uint64_t>(span / stride + (span % stride != 0));
    first[*axis] = b;
    step[*axis] = s;
  }
  const auto in_strides = strides(*d);
  move(e, n, 0, out, 0, [&](std::size_t k) {
    std::size_t index = 0;
    for (std::size_t a = out.size(); a-- > 0;) {
      const auto c = static_cast<std::int64_t>(k % out[a]);
      k /= out[a];
      index += static_cast<std::size_t>(first[a] + c * step[a]) * in_strides[a];
    }
    return index;
  });
}

void split(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  const auto axis = normalise_axis(int_attribute(n, "axis", 0), d->size());
  if (!axis) e.fail(n, "axis out of range");
  const std::uint64_t dim = (*d)[*axis];
  Ints sizes;
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    auto s = e.ints(n, 1);
    if (!s) return;
    sizes = *s;
  } else if (const auto it = n.ints.find("split"); it != n.ints.end()) {
    sizes = it->second;
  } else {  // equal parts (the last smaller: opset 18's num_outputs)
    const auto parts =
        static_cast<std::uint64_t>(int_attribute(n, "num_outputs", static_cast<std::int64_t>(n.outputs.size())));
    if (parts == 0 || parts != n.outputs.size()) e.fail(n, "num_outputs differs from the outputs");
    const std::uint64_t part = (dim + parts - 1) / parts;
    for (std::uint64_t i = 0, left = dim; i < parts; ++i, left -= std::min(part, left))
      sizes.push_back(static_cast<std::int64_t>(std::min(part, left)));
  }
  if (sizes.size() != n.outputs.size()) e.fail(n, "split sizes differ in number from the outputs");
  const Dims parts = dims_from(e, n, sizes, "split size");
  std::uint64_t sum = 0;
  for (std::uint64_t p : parts) sum += p;
  if (sum != dim) e.fail(n, fmt::format("split sizes add up to {}, not the axis' {}", sum, dim));
  std::uint64_t inner = 1, offset = 0;
  for (std::size_t a = *axis + 1; a < d->size(); ++a) inner *= (*d)[a];
  for (std::size_t o = 0; o < parts.size(); ++o) {
    Dims out = *d;
    out[*axis] = parts[o];
    const std::uint64_t block = parts[o] * inner;
    move(e, n, o, out, 0, [&](std::size_t k) { return (k / block) * dim * inner + offset * inner + k % block; });
    offset += parts[o];
  }
}

void expand(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  const auto target = e.ints(n, 1);
  if (!d || !target) return;
  const auto out = broadcast(*d, dims_from(e, n, *target, "target dimension"));
  if (!out)
    e.fail(n, fmt::format("{} does not broadcast to {}", dims_text(*d), dims_text(dims_from(e, n, *target, ""))));
  const std::optional<Band> band = e.band(n, 0);  // a scalar expanded, or a band broadcast
  if (band && element_count(*out) > kMaxFoldedElements && band_carries(*band, *d, *out))
    return e.set_band(n, 0, *out, *band);
  move(e, n, 0, *out, 0, [&](std::size_t k) { return broadcast_index(*d, *out, k); });
}

void tile(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  const auto repeats = e.ints(n, 1);
  if (!d || !repeats) return;
  if (repeats->size() != d->size()) e.fail(n, "repeats differ in number from the input's axes");
  const Dims r = dims_from(e, n, *repeats, "repeat");
  Dims out;
  for (std::size_t a = 0; a < d->size(); ++a) out.push_back((*d)[a] * r[a]);  // each ≤ 2^24 · 2^24
  const auto in_strides = strides(*d);
  move(e, n, 0, out, 0, [&](std::size_t k) {
    std::size_t index = 0;
    for (std::size_t a = out.size(); a-- > 0;) {
      index += (k % out[a]) % (*d)[a] * in_strides[a];
      k /= out[a];
    }
    return index;
  });
}

void trilu(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  if (d->size() < 2) e.fail(n, "input of rank below 2");
  const Values* in = e.values(n, 0);
  const bool given_k = n.inputs.size() > 1 && !n.inputs[1].empty();
  const auto k = given_k ? e.scalar_int(n, 1) : std::optional<std::int64_t>{0};
  const bool upper = int_attribute(n, "upper", 1) != 0;
  // Too large to fold, a uniform input becomes a band: kept where c − r ≥ k (upper) or ≤ k, zero elsewhere.
  if (const std::optional<Band> band = in ? std::nullopt : e.band(n, 0); band && band->uniform() && k) {
    constexpr std::int64_t kBeyond = std::int64_t{1} << 40;  // past every diagonal of a tensor: the same split
    const std::int64_t diagonal = std::clamp(*k, -kBeyond, kBeyond);
    return e.set_band(
        n, 0, *d, upper ? Band{band->real, band->upper, 0, diagonal} : Band{band->real, 0, band->upper, diagonal + 1});
  }
  if (!in || !k) return e.set_dims(n, 0, *d);
  const auto rows = (*d)[d->size() - 2], cols = d->back();
  Values v = *in;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto r = static_cast<std::int64_t>(i / cols % rows), c = static_cast<std::int64_t>(i % cols);
    const bool kept = upper ? c - r >= *k : c - r <= *k;
    if (kept) continue;
    if (v.real)
      v.reals[i] = 0;
    else
      v.ints[i] = 0;
  }
  e.set_values(n, 0, *d, std::move(v));
}

void pad(Evaluator& e, const Node& n) {
  const Dims* d = e.dims(n, 0);
  if (!d) return;
  Ints pads;
  if (const auto it = n.ints.find("pads"); it != n.ints.end()) {
    pads = it->second;  // opset < 11
  } else {
    auto p = e.ints(n, 1);
    if (!p) return;
    pads = *p;
  }
  Ints axes;
  if (n.inputs.size() > 3 && !n.inputs[3].empty()) {
    auto a = e.ints(n, 3);
    if (!a) return;
    axes = *a;
  } else {
    for (std::size_t i = 0; i < d->size(); ++i) axes.push_back(static_cast<std::int64_t>(i));
  }
  if (pads.size() != 2 * axes.size()) e.fail(n, fmt::format("{} pads for {} axes", pads.size(), axes.size()));
  Dims out = *d;
  Ints before(d->size(), 0);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto axis = normalise_axis(axes[i], d->size());
    if (!axis) e.fail(n, fmt::format("axis {} out of range", axes[i]));
    const auto b = pads[i], a = pads[i + axes.size()];
    const std::int64_t limit = static_cast<std::int64_t>(kMaxDimension);
    if (b < -limit || b > limit || a < -limit || a > limit) e.fail(n, "a pad beyond the dimension limit");
    const std::int64_t size = static_cast<std::int64_t>((*d)[*axis]) + b + a;
    if (size < 0)
      e.fail(n, fmt::format("pads {} and {} remove more than axis {}'s {} elements", b, a, *axis, (*d)[*axis]));
    out[*axis] = static_cast<std::uint64_t>(size);
    before[*axis] = b;
  }
  // A value only in constant mode, with the pad value known (absent: 0).
  const auto mode = n.strings.find("mode");
  const Values* in = e.values(n, 0);
  const Values* fill = n.inputs.size() > 2 && !n.inputs[2].empty() ? e.values(n, 2) : nullptr;
  const bool no_fill = n.inputs.size() <= 2 || n.inputs[2].empty();
  if ((mode != n.strings.end() && mode->second != "constant") || !in || (!fill && !no_fill) ||
      element_count(out) > kMaxFoldedElements || (fill && fill->size() != 1))
    return e.set_dims(n, 0, out);
  Values v;
  v.real = in->real;
  const double padding = fill ? fill->at(0) : 0.0;
  const auto in_strides = strides(*d);
  for (std::size_t k = 0, count = element_count(out); k < count; ++k) {
    std::size_t index = 0, rest = k;
    bool inside = true;
    for (std::size_t a = out.size(); a-- > 0;) {
      const auto c = static_cast<std::int64_t>(rest % out[a]) - before[a];
      rest /= out[a];
      inside = inside && c >= 0 && c < static_cast<std::int64_t>((*d)[a]);
      if (inside) index += static_cast<std::size_t>(c) * in_strides[a];
    }
    if (v.real)
      v.reals.push_back(inside ? in->reals[index] : padding);
    else
      v.ints.push_back(inside ? in->ints[index] : static_cast<std::int64_t>(padding));
  }
  e.set_values(n, 0, out, std::move(v));
}

}  // namespace

void add_movement_rules(Rules& rules) {
  rules["Identity"] = identity;
  rules["Unsqueeze"] = unsqueeze;
  rules["Squeeze"] = squeeze;
  rules["Reshape"] = reshape;
  rules["Flatten"] = flatten;
  rules["Transpose"] = transpose;
  rules["Concat"] = concat;
  rules["Gather"] = gather;
  rules["Slice"] = slice;
  rules["Split"] = split;
  rules["Expand"] = expand;
  rules["Tile"] = tile;
  rules["Trilu"] = trilu;
  rules["Pad"] = pad;
}

}  // namespace ecosim::onnx_import
