// The layers a network is counted as, and emit(), which reports a layer's operations to an OpSink
// under a convention (exact formulas in ops_counter/README.md; paper = mmcv MAC rules of models.md).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <variant>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/op_record.hpp"
#include "ecosim/ops_counter/primitives.hpp"

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
  std::uint64_t rows = 1, width = 1;
  bool affine = true;  // a learned scale and shift (γ, β) applied after normalising
};

struct RmsNorm {  // x / sqrt(mean(x²) + eps) · γ (Llama's norm: no centring, no bias)
  std::uint64_t rows = 1, width = 1;
  /// γ stored as its offset from 1, scaling by (1 + γ) (Gemma's): `width` adds a pass forming the scale.
  bool unit_offset = false;
};

/// Rotary position embedding of `vectors` head vectors (queries and keys of the new tokens), the first
/// `rotary_dims` of each rotated: x·cos + rotate_half(x)·sin (the angles are a table, not computed).
struct Rotary {
  std::uint64_t vectors = 1, rotary_dims = 2;
};

enum class ActivationFunc : std::uint8_t { gelu, relu, silu };
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
  /// The mean of the whole tensor (torch's x.mean(), an ONNX ReduceMean without axes): its backward keeps nothing
  /// of its input (a mean over dims keeps it). Counting ignores it.
  bool whole_tensor = false;
  /// An nn.AdaptiveAvgPool module (ResNet's, Swin's), whose mmcv hook counts its input elements in the paper
  /// convention; a tensor's mean (x.mean(): PVT, Twins) no hook sees.
  bool pooling_module = false;
};

struct AvgPool2d {  // average pooling over kernel × kernel windows, no padding
  std::uint64_t batch = 1, channels = 1, in_h = 1, in_w = 1, kernel = 1, stride = 1;
};

/// Batch normalisation over batch × channels × h × w, affine; counted in its inference form y = a·x + b (the
/// per-channel a and b folded), as the ONNX import counts BatchNormalization.
struct BatchNorm2d {
  std::uint64_t batch = 1, channels = 1, h = 1, w = 1;
  bool affine = true;  // a learned scale and shift (γ, β): parameters of the training step; counting ignores it
};

/// Max pooling over kernel × kernel windows (zero padding `pad` is never the maximum).
struct MaxPool2d {
  std::uint64_t batch = 1, channels = 1, in_h = 1, in_w = 1, kernel = 1, stride = 1, pad = 0;
  std::uint64_t out_h() const;
  std::uint64_t out_w() const;
};

/// Dropout in training (the identity in inference: emit() reports nothing; the training step counts it).
struct Dropout {
  std::uint64_t elements = 1;
};

struct Softmax {  // over rows of `len` elements
  std::uint64_t batch = 1, rows = 1, len = 1;
};

struct Matmul {  // batched A·B of activations (`@`): C[batch][m×n] = A[batch][m×k]·B[batch][k×n]
  std::uint64_t batch = 1, m = 1, n = 1, k = 1;
};

// The kinds below describe the operations of an imported graph (ONNX) that the zoo's layers do not cover.

/// Softmax attention found in a graph: scores Q·Kᵀ, an optional scale by a constant, an optional mask (an
/// additive one, or a Where selecting a fill value) and bias, softmax and context ·V, for batch × heads attentions
/// of `queries` queries over `keys` keys of width head_dim. The graph computes every score, masked ones included.
/// `causal`: the mask is a constant hiding exactly the keys after each query's position (AttentionConfig::causal).
struct SoftmaxAttention {
  std::uint64_t batch = 1, heads = 1, queries = 1, keys = 1, head_dim = 1;
  /// K/V heads before a grouped-query expansion (each serving heads / kv_heads query heads; the graph computes on
  /// the expanded K and V, and so is counted).
  std::uint64_t kv_heads = 1;
  bool scaled = true, masked = false;
  bool biased = false;       // a second additive term besides the mask (Swin's relative-position bias)
  bool mask_select = false;  // the mask is a Where (a selection per score, no arithmetic), not an add
  bool causal = false;
  /// The mask is a constant stored as external data (e.g. stripped weights): causal or not cannot be told.
  bool mask_unknown = false;
  /// Dropout on the probabilities (a training export's): the training step keeps its mask and the dropped
  /// probabilities (counting: the inference form, no dropout).
  bool probs_dropout = false;
  /// q, Kᵀ and v are views of tensors the graph made (one head: torch's matmul reshapes copy nothing), so the
  /// training step saves those tensors (Layer::input, other and value name their producers), each stored once
  /// with whatever else saves it; otherwise copies of the block's own (several heads: the reshapes copy).
  bool operand_views = false;
};

/// `per_element` operations on each of `elements` outputs, `inputs` operands read; paper: `paper_macs` MACs.
struct Elementwise {
  std::string func;
  std::uint64_t elements = 1;
  /// Each operand's own elements where it broadcasts (a squeeze-excite scale [N, C, 1, 1] times [N, C, H, W]);
  /// 0: `elements`. The bytes read, and what autograd keeps of it, depend on it; the operations do not.
  std::array<std::uint64_t, 2> operand_elements = {0, 0};
  ops::OpMix per_element;
  unsigned inputs = 1;
  std::uint64_t paper_macs = 0;
  /// Which operands are constants (weights, scalars): bit i for operand i. What autograd keeps depends on it
  /// (x·c keeps nothing of x's, x·y both); counting does not.
  unsigned constant_operands = 0;
  /// Which constant operands are learned tables (a LayerScale's γ, a learned temperature vector: initializers of
  /// ≥ 2 elements, as Layer::table_parameters counts them): x·γ keeps x for γ's gradient.
  unsigned learned_operands = 0;
};

/// `rows` independent reductions of `len` elements each (pooling windows, reduce ops); paper: `paper_macs`.
struct Reduction {
  std::string func;
  std::uint64_t rows = 1, len = 1;
  ops::OpMix per_row;
  std::uint64_t paper_macs = 0;
  /// The tensor it reads, when its rows' windows overlap or skip (a pool of stride ≠ kernel: 3×3 windows at stride
  /// 2 cover each input about 2.25 times): read once, and the training step's input gradient; 0: rows·len.
  std::uint64_t input_elements = 0;
};

/// A copy of `elements` elements (transpose, concat, slice, gather, ...): bytes, no arithmetic.
struct DataMovement {
  std::string func;
  std::uint64_t elements = 1;
  /// PyTorch computes it as a view of its input (transpose, slicing, split, expand, indexing an activation):
  /// whatever saves its output keeps the input's storage (the training step's aliasing); counting ignores it.
  bool view = false;
  /// A lookup in a weight table by activation indices (nn.Embedding's Gather): the indices, which autograd keeps
  /// (int64) for the table's gradient, a scatter-add; 0: none. Counting ignores it.
  std::uint64_t saved_indices = 0;
};

/// A transposed 2-D convolution as a GEMM of every input pixel with the (C_out/groups)·kernel² weights of its
/// group, then the overlapping contributions summed into the outputs (col2im), plus bias.
struct ConvTranspose2d {
  std::uint64_t batch = 1, in_ch = 1, out_ch = 1, in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  std::uint64_t kernel_h = 1, kernel_w = 1, groups = 1;
  bool bias = true;
};

/// A network input named in Layer::input or Layer::other: "network input " + the graph input's name.
std::string network_input_name(std::string_view graph_input);
bool is_network_input_name(std::string_view name);

struct Layer {
  std::string name;
  std::variant<Linear, Conv2d, LayerNorm, Activation, ResidualAdd, ElementwiseMul, MeanPool, AvgPool2d, Softmax, Matmul,
               AttentionConfig, SoftmaxAttention, Elementwise, Reduction, DataMovement, ConvTranspose2d, RmsNorm,
               Rotary, BatchNorm2d, MaxPool2d, Dropout>
      op;
  /// The layer whose output this layer reads (its first operand); empty: the layer before it; or a network
  /// input by name (network_input_name: an imported graph's second input, a decoder's memory). Only the
  /// training step's saved tensors use it (a ResNet shortcut reads its block's input).
  std::string input = {};
  /// Part of an attention block though not an AttentionConfig (a decoder's q/k/v/o projections and rotary, an
  /// imported block's scale of q or Kᵀ): counted under --scope attention.
  bool attention_part = false;
  /// Elements of learned tables the layer reads without computing with them (token, position and token-type
  /// embeddings, class tokens, relative-position bias tables): trainable parameters of the training step (their
  /// gradients, optimizer state and update), no operations.
  std::uint64_t table_parameters = 0;
  /// The layer whose output is this layer's second operand (an elementwise product's other factor, a matmul's
  /// B), or a network input by name; empty: a tensor of its own. Only the training step's saved tensors use it.
  std::string other = {};
  /// Sequential passes its rows are processed in, one after the other (a decoder's decode steps, one new token a
  /// sequence each): its records carry params.passes (ops::kPassesParam) and a Linear's GEMM is a batch of
  /// `passes` products, each reading the weights again. Rows must split evenly.
  std::uint64_t passes = 1;
  /// Elements of its parameters that an earlier layer already has (one module applied twice: ALBERT's shared
  /// layers, a convolution reused): trained, stored and updated once, there; the training step leaves them out.
  std::uint64_t shared_parameters = 0;
  /// Computes a BatchNormalization's batch mean or variance that an export spells out and feeds it (a BatchNorm
  /// without running statistics): counted as the graph computes it, but a training step's BatchNorm computes
  /// its statistics itself, so the step neither runs nor records it.
  bool batch_statistics = false;
  /// The layer whose output is an attention block's v, or a network input by name: whether it requires a gradient,
  /// and the tensor saved where SoftmaxAttention::operand_views; empty: a tensor of its own. Only the training step
  /// uses it.
  std::string value = {};
};

/// Reports the layer's operations (one or more records named "<layer name>.<part>") to sink.
/// Throws ecosim::Error for zero or inconsistent dimensions.
void emit(const Layer& layer, Convention convention, OpSink& sink);

}  // namespace ecosim
