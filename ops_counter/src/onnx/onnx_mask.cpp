// Whether a mask tensor's values are the causal pattern (Tensor's causal_* flags): for constants read from the
// file (onnx_read.cpp) and for masks the shape evaluator folds from shapes (Trilu of an Expand, as PyTorch 2's
// scaled_dot_product_attention(is_causal=True) and Llama's torch.triu build them) — element by element, or over
// long sequences from their Band (diagonal by diagonal).
#include <optional>
#include <utility>

#include "onnx_graph.hpp"

namespace ecosim::onnx_import {

namespace {

/// Which causal flags a value leaves possible, `attended` or masked: an additive mask's 0 or ≤ kMaskedBelow, a
/// bool condition true where attended (keep) or where masked (drop).
struct Flags {
  bool additive, keep, drop;
  void check(float v, bool attended) {
    additive = additive && (attended ? v == 0.0f : v <= kMaskedBelow);
    keep = keep && (v != 0.0f) == attended;
    drop = drop && (v != 0.0f) != attended;
  }
  bool any() const { return additive || keep || drop; }
  void set(Tensor& t) const {
    t.causal_additive = additive;
    t.causal_keep = keep;
    t.causal_drop = drop;
  }
};

/// The trailing query × key dimensions of a tensor that may be a causal mask (rank ≥ 2, keys ≥ queries).
std::optional<std::pair<std::uint64_t, std::uint64_t>> mask_dims(const Tensor& t) {
  if (!t.dims || t.dims->size() < 2) return std::nullopt;
  const std::uint64_t q = (*t.dims)[t.dims->size() - 2], k = t.dims->back();
  if (k < q) return std::nullopt;
  return std::pair{q, k};
}

}  // namespace

void classify_causal(Tensor& t, std::uint64_t elements, const std::function<float(std::uint64_t)>& value,
                     bool boolean) {
  t.causal_additive = t.causal_keep = t.causal_drop = false;
  const auto qk = mask_dims(t);
  if (!qk || elements == 0) return;
  const auto [q, k] = *qk;
  Flags flags{!boolean, boolean, boolean};
  for (std::uint64_t e = 0; e < elements && flags.any(); ++e) {
    const std::uint64_t i = e / k % q, j = e % k;
    flags.check(value(e), j <= k - q + i);
  }
  flags.set(t);
}

void classify_causal(Tensor& t, const Band& band) {
  t.causal_additive = t.causal_keep = t.causal_drop = false;
  const auto qk = mask_dims(t);
  if (!qk || qk->first == 0) return;
  const auto q = static_cast<std::int64_t>(qk->first), k = static_cast<std::int64_t>(qk->second);
  // Query i attends to key j where j − i ≤ k − q: diagonals 1 − q … k − q attended, k − q + 1 … k − 1 masked.
  // The band's value on the diagonals lo … hi: `lower` below its offset, `upper` from it.
  Flags flags{band.real, !band.real, !band.real};
  auto check = [&](std::int64_t lo, std::int64_t hi, bool attended) {
    if (lo > hi) return;
    if (lo < band.offset) flags.check(static_cast<float>(band.lower), attended);
    if (hi >= band.offset) flags.check(static_cast<float>(band.upper), attended);
  };
  check(1 - q, k - q, true);
  check(k - q + 1, k - 1, false);
  flags.set(t);
}

}  // namespace ecosim::onnx_import
