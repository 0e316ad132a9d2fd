// Internal: what one layer means for training — the tensors it reads, writes and saves for backward, its
// parameters, its backward records, and the optimizer's update per parameter (ops_counter/README.md,
// "Training step"). A layer kind without rules is refused with the layer's name.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/ops_counter/layers.hpp"
#include "ecosim/ops_counter/training_step.hpp"

namespace ecosim::training {

/// The element type of a saved tensor and its size.
struct ElementType {
  std::string_view name;
  std::uint64_t bytes;
};
inline constexpr ElementType kFp32{"fp32", 4};
inline constexpr ElementType kInt64{"int64", 8};  // PyTorch's max-pool indices
inline constexpr ElementType kBool{"bool", 1};    // a dropout mask as CUDA keeps it (the CPU keeps fp32 noise)

/// One tensor a layer saves: its input (the tensor it reads, possibly saved by another layer too), its output,
/// or a tensor of its own (statistics, indices, attention internals).
struct Save {
  /// input, output: the layer's; other: its second operand (Layer::other's output, else a tensor of its own);
  /// value: an attention block's v (Layer::value's output, else its own); own: a tensor of the layer's own
  enum class Of : std::uint8_t { input, output, other, own, value } of;
  std::string what;
  std::uint64_t elements;
  ElementType type = kFp32;
  /// Kept only for the gradient of one operand (a product's x·y keeps x for dy = x·dz): always, or only when the
  /// input (other) operand requires a gradient (GradientFlow), or either does (an attention's v, for the
  /// probabilities' gradient), as autograd keeps it.
  enum class For : std::uint8_t { always, input_gradient, other_gradient, either_gradient } kept_for = For::always;
  /// input, other, value: that tensor only where it is whole (`elements` of it), or repeated `repeats` times as a
  /// view of stride 0 (one K/V head expanded to every query head); a part of it (q, k or v of a packed projection)
  /// is a tensor of the layer's own, as torch's matmul copies it.
  bool whole_only = false;
  std::uint64_t repeats = 1;
};

/// The tensors of one layer at fp32 elements: its input and output, the largest pair of activation gradients
/// alive during its backward, what it saves, and its trainable parameters and buffers.
struct LayerTensors {
  std::uint64_t input = 0, output = 0, backward_transient = 0;
  std::vector<Save> saves;
  std::uint64_t parameters = 0;      // trainable elements (fp32)
  std::uint64_t matmul_weights = 0;  // of them, the weights its matmuls read (autocast casts each to fp16)
  std::uint64_t buffer_bytes = 0;    // state neither trained nor saved
  bool view = false;  // the output is a view of the input: one storage (a layer saving it keeps the input's)
  /// A parameterless kind without rules (an elementwise, reduction or selection op ecosim cannot differentiate):
  /// why, naming the layer; its sizes are its operands'. Refused where autograd records it (gradient_flow),
  /// harmless where it works on data only (an attention mask's arithmetic). Empty: modelled.
  std::string unmodelled = {};
};

/// The layer's rules; LayerTensors::unmodelled set for a parameterless kind without them. Throws ecosim::Error
/// naming the layer for any other kind (or attention variant) without training rules.
LayerTensors layer_rules(const Layer& layer);
/// layer_rules, refusing an unmodelled parameterless kind too.
LayerTensors layer_tensors(const Layer& layer);

/// The softmax attention a training step models (MSA, or LSA over unpadded windows): `groups` attentions of
/// `tokens` tokens each. Throws, naming `layer`, for any other attention.
struct AttentionShape {
  std::uint64_t groups, tokens;
};
AttentionShape attention_shape(const std::string& layer, const AttentionConfig& a);

/// The forward records of `layer` in training: emit()'s, and BN's batch statistics (mean, variance, 1/std); none
/// for a layer computing statistics an exported BatchNorm is fed (Layer::batch_statistics).
void emit_training_forward(const Layer& layer, Convention convention, OpSink& sink);

/// Whether autograd records a layer — its output requires a gradient: the layer has parameters (or learned
/// tables), or an operand it reads requires one (an earlier recorded layer's output; the network's input unless
/// it is data, reads_input_data) — and whether its input and its second operand (Layer::other; a tensor of its
/// own when unnamed) require a gradient (dX, dOther computed). A layer recorded by none — an imported graph's
/// arithmetic on its input, an attention mask's — saves nothing and has no backward, as autograd records no op
/// none of whose operands requires a gradient. Throws the layer's LayerTensors::unmodelled for a recorded one.
struct GradientFlow {
  bool recorded = true, input_gradient = true, other_gradient = true;
};
std::vector<GradientFlow> gradient_flow(const std::vector<Layer>& layers, const std::vector<LayerReads>& reads,
                                        const std::vector<LayerTensors>& tensors);

/// The distinct tensors saved by `layers`, which read `reads` (layer_reads), whose gradients flow as `flow`
/// (gradient_flow: the layers autograd records save) and whose rules are `tensors` (one per layer).
std::vector<SavedTensor> saved_tensors(const std::vector<Layer>& layers, const std::vector<LayerReads>& reads,
                                       const std::vector<GradientFlow>& flow, const std::vector<LayerTensors>& tensors);

/// The backward records of `layer` ("<layer>.backward.<part>"): gradients of its operands that require one
/// (`flow`: a Linear, convolution or normalisation whose input requires none computes no dX, a product with data
/// no gradient for the data) and of its parameters.
void emit_backward(const Layer& layer, Convention convention, OpSink& sink, const GradientFlow& flow = {});

/// The optimizer's update of `parameters` parameters ("optimizer.<name>"), the same in both conventions (mmcv
/// has no rule for it), and its state bytes per parameter.
OpRecord update_record(Optimizer optimizer, std::uint64_t parameters);
std::uint64_t state_bytes_per_parameter(Optimizer optimizer);

}  // namespace ecosim::training
