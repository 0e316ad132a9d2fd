// One training step of a network (forward, backward, optimizer update) as op records in either convention, the
// tensors autograd saves for backward (aliases stored once), and the step's memory: parameters, gradients,
// optimizer state, saved activations and the memory curve over the step (rules in ops_counter/README.md,
// "Training step").
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/ops_counter/layers.hpp"

namespace ecosim {

/// SGD with momentum and weight decay (one momentum buffer per parameter), or AdamW (two moments).
enum class Optimizer : std::uint8_t { sgd, adamw };
std::string_view name(Optimizer o);
Optimizer parse_optimizer(std::string_view text);  // "sgd" | "adamw"; throws ecosim::Error

/// One layer saving a tensor, and what the tensor is to it ("input", "output", "q", ...).
struct Saver {
  std::size_t layer = 0;
  std::string what;
  std::uint64_t elements = 0;  // the elements this layer saves: the tensor's, or fewer when it reads a part of
                               // it (a ViT head its class token); autograd keeps the whole storage all the same
};

/// A tensor autograd keeps from the forward pass until the backward pass of the layers that saved it.
struct SavedTensor {
  static constexpr std::size_t kNetworkInput = static_cast<std::size_t>(-1);
  std::string layer;           // the first layer saving it
  std::string what;            // "input", "output", "stats", "indices", "q", "k", "v", "probs", "context"
  std::string dtype = "fp32";  // fp32, or int64 (max-pool indices)
  std::uint64_t elements = 0, bytes = 0;
  std::size_t first_saver = 0, last_saver = 0;  // indices of the first and last layer saving it
  std::size_t producer = kNetworkInput;         // the layer whose output (or own tensor) it is
  std::vector<Saver> savers;                    // every layer saving it, in forward order
  bool requires_gradient =
      true;  // autograd's requires_grad: false for input data and what unrecorded layers made of it
};

/// The memory held at one moment of the step: after a layer's forward, or during a layer's backward.
struct MemoryPoint {
  std::string phase;  // "forward" | "backward"
  std::string layer;
  std::uint64_t bytes = 0;
};

struct TrainingStep {
  std::vector<OpRecord> forward, backward, update;
  std::vector<SavedTensor> saved;  // distinct tensors, in the order they are first saved
  std::uint64_t parameters = 0;    // trainable elements
  std::uint64_t parameter_bytes = 0, gradient_bytes = 0, optimizer_state_bytes = 0;
  std::uint64_t buffer_bytes = 0;      // BN running statistics and batch counters (state, neither trained nor saved)
  std::uint64_t activation_bytes = 0;  // Σ saved tensors: the activation memory before backward
  std::uint64_t peak_bytes = 0;        // the highest point of memory_curve
  std::vector<MemoryPoint> memory_curve;
  /// Per layer: the weight elements its matmuls (linear, convolution, attention projections) read, less those an
  /// earlier layer already has (one module applied twice): what autocast casts to an fp16 copy, once a weight,
  /// which autograd saves for the backward.
  std::vector<std::uint64_t> matmul_weights;
};

/// The training step of `layers` (in execution order) at fp32. Throws ecosim::Error naming the layer for a kind
/// whose saved tensors and backward are not modelled, a `Layer::input` naming no earlier layer, or a byte count
/// that overflows 64 bits.
TrainingStep training_step(const std::vector<Layer>& layers, Optimizer optimizer, Convention convention);

/// The tensors layer i of a network reads, by what produced them: an earlier layer's index (its output), or
/// kNetworkInput — a network input, the one the name gives or, for a first layer reading no name, the network's
/// input. `other` is kNone unless Layer::other names an operand.
struct LayerReads {
  static constexpr std::size_t kNetworkInput = SavedTensor::kNetworkInput, kNone = kNetworkInput - 1;
  std::size_t input = kNetworkInput, other = kNone, value = kNone;
};
/// What each layer of `layers` (in execution order) reads: Layer::input, other or value names the last earlier
/// layer of that name or a network input (is_network_input_name); an unnamed input is the output of the layer
/// before (the first layer's, the network's input). Throws ecosim::Error naming the layer for a name that is
/// neither. The one rule the saved tensors, the training schemes' dtypes and the step's input gradient follow.
std::vector<LayerReads> layer_reads(const std::vector<Layer>& layers);

/// Whether layer i of `layers` reads the network's input as data, which requires no gradient — an imported
/// graph's input (named so: Layer::input), or the images a zoo model's first convolution takes (a token model's
/// first tensor is a learned lookup's output): autograd computes no gradient of it for a Linear or a convolution,
/// and GACT's quantizer leaves it as saved. `reads`: layer_reads(layers).
bool reads_input_data(const std::vector<Layer>& layers, const std::vector<LayerReads>& reads, std::size_t i);

/// The distinct tensors `layers` save for backward (the SavedTensor list of training_step).
std::vector<SavedTensor> saved_tensors(const std::vector<Layer>& layers);

}  // namespace ecosim
