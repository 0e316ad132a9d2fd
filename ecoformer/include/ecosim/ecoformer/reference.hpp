// Naive references for checking the kernels: textbook softmax attention in double precision, one query
// row at a time (two passes over the keys, no online rescaling), and the relative errors used to compare.
#pragma once
#include <vector>

#include "ecosim/ecoformer/run.hpp"

namespace ecosim::ecoformer {

/// out_i = Σ_j softmax_j(q_i·k_j/√d)·v_j per (batch, head); k and v may have a different sequence length
/// than q (k.seq == v.seq). With `mask_own_key` (k.seq == q.seq), query i skips key i unless it is the only
/// key, as shared-QK Reformer does. Throws ecosim::Error on mismatched shapes.
Tensor naive_softmax_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool mask_own_key = false);

/// ‖a − b‖_F / ‖b‖_F (‖a − b‖_F when b = 0); throws ecosim::Error when the sizes differ.
double relative_frobenius_error(const std::vector<float>& a, const std::vector<float>& b);
/// max_i |a_i − b_i| / max(max_i |b_i|, tiny); infinity where an element of either is NaN, or infinite and not the
/// other's equal (a kernel writing NaN fails any tolerance).
double max_relative_error(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace ecosim::ecoformer
