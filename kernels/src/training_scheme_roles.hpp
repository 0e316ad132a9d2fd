// Internal: what a saved tensor is to the layer saving it (the input of a conv, the output of a ReLU, an operand
// of an attention matmul, ...), which decides its form under each scheme, and the dtype autocast gives each
// layer's output (amp, mesa).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/ops_counter/dtype.hpp"
#include "ecosim/ops_counter/layers.hpp"
#include "ecosim/ops_counter/training_step.hpp"

namespace ecosim::kernels::schemes {

enum class Role : std::uint8_t {
  conv_input,
  linear_input,
  bn_input,
  ln_input,
  stats,  // per-channel or per-row statistics of a norm
  relu_output,
  act_input,  // GELU or SiLU
  softmax_output,
  matmul_operand,  // of `@` or of attention's q·kᵀ and probs·v
  pool_input,      // average or mean pool
  maxpool_input,
  indices,     // max-pool argmax
  mask,        // dropout
  lookup_ids,  // a table lookup's (nn.Embedding's) int64 token ids: kept as they are by every scheme
  mul_operand,
};

/// The roles a tensor has for one saver (attention's probabilities without dropout are both the softmax's
/// output and the probs·v matmul's operand).
std::vector<Role> roles(const Layer& layer, const std::string& what);

/// The attention heads a saved attention tensor (q, k, v, probs) is split into, else 1.
std::uint64_t heads_of(const Layer& layer, const std::string& what);

/// Under autocast (fp16): the dtype of each saved tensor as produced (before a saver's own cast).
/// `reads`: layer_reads(layers).
std::vector<DType> autocast_dtypes(const std::vector<Layer>& layers, const std::vector<LayerReads>& reads,
                                   const TrainingStep& step);

}  // namespace ecosim::kernels::schemes
