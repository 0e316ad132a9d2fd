// The layers a network is counted as, and emit(), which reports a layer's operations to an OpSink
// under a convention (exact formulas in ops_counter/README.md; paper = mmcv MAC rules of models.md).
#pragma once
#include <cstdint>
#include <string>
#include <variant>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim {

struct Linear {
  std::uint64_t tokens = 1, in = 1, out = 1;  // tokens = batch × sequence positions
  bool bias = true;
};

struct Conv2d {
  std::uint64_t batch = 1, in_ch = 1, out_ch = 1, in_h = 1, in_w = 1;
  std::uint64_t kernel = 1, stride = 1, pad = 0, groups = 1;
  bool bias = true;
  std::uint64_t out_h() const;
  std::uint64_t out_w() const;
};

struct LayerNorm {
  std::uint64_t rows = 1, width = 1;  // affine
};

enum class ActivationFunc : std::uint8_t { gelu, relu };
struct Activation {
  ActivationFunc func = ActivationFunc::gelu;
  std::uint64_t elements = 1;
};

struct ResidualAdd {
  std::uint64_t elements = 1;
};

struct ElementwiseMul {  // x·y of two tensors
  std::uint64_t elements = 1;
};

struct MeanPool {  // mean over tokens (the classification heads)
  std::uint64_t batch = 1, tokens = 1, width = 1;
};

struct AvgPool2d {  // average pooling over kernel × kernel windows, no padding
  std::uint64_t batch = 1, channels = 1, in_h = 1, in_w = 1, kernel = 1, stride = 1;
};

struct Softmax {  // over rows of `len` elements
  std::uint64_t batch = 1, rows = 1, len = 1;
};

struct Matmul {  // batched A·B of activations (`@`): C[batch][m×n] = A[batch][m×k]·B[batch][k×n]
  std::uint64_t batch = 1, m = 1, n = 1, k = 1;
};

struct Layer {
  std::string name;
  std::variant<Linear, Conv2d, LayerNorm, Activation, ResidualAdd, ElementwiseMul, MeanPool, AvgPool2d, Softmax, Matmul,
               AttentionConfig>
      op;
};

/// Reports the layer's operations (one or more records named "<layer name>.<part>") to sink.
/// Throws ecosim::Error for zero or inconsistent dimensions.
void emit(const Layer& layer, Convention convention, OpSink& sink);

}  // namespace ecosim
