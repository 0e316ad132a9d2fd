// Whether a mask tensor's values are the causal pattern (Tensor's causal_* flags): for constants read from the
// file (onnx_read.cpp) and for masks the shape evaluator folds from shapes (Trilu of an Expand, as PyTorch 2's
// scaled_dot_product_attention(is_causal=True) and Llama's torch.triu build them).
#include "onnx_graph.hpp"

namespace ecosim::onnx_import {

void classify_causal(Tensor& t, std::uint64_t elements, const std::function<float(std::uint64_t)>& value,
                     bool boolean) {
  t.causal_additive = t.causal_keep = t.causal_drop = false;
  if (!t.dims || t.dims->size() < 2 || elements == 0) return;
  const std::vector<std::uint64_t>& dims = *t.dims;
  const std::uint64_t q = dims[dims.size() - 2], k = dims.back();
  if (k < q) return;
  bool additive = !boolean, keep = boolean, drop = boolean;
  for (std::uint64_t e = 0; e < elements && (additive || keep || drop); ++e) {
    const std::uint64_t i = e / k % q, j = e % k;
    const bool attended = j <= k - q + i;
    const float v = value(e);
    additive = additive && (attended ? v == 0.0f : v <= kMaskedBelow);
    keep = keep && (v != 0.0f) == attended;
    drop = drop && (v != 0.0f) != attended;
  }
  t.causal_additive = additive;
  t.causal_keep = keep;
  t.causal_drop = drop;
}

}  // namespace ecosim::onnx_import
