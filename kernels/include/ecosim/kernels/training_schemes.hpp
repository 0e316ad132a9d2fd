// Activation-compression schemes applied to a training step's saved tensors (issue 20): the form in which each
// layer saving a tensor keeps it under none, amp, actnn:L1|L2|L3, gact:B, mesa and fewbit:B; the bytes of each
// form from the kernel modules' own layouts (actnn::Layout, mesa::Layout, fewbit::code_bytes); the compress and
// decompress passes as the kernels' op records at the tensor's shape; and the memory curve of the step with the
// compressed activations (rules in ops_counter/README.md, "Training step").
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/ops_counter/layers.hpp"
#include "ecosim/ops_counter/training_step.hpp"

namespace ecosim::kernels::schemes {

enum class SchemeKind : std::uint8_t { none, amp, actnn, gact, mesa, fewbit };

struct Scheme {
  SchemeKind kind = SchemeKind::none;
  unsigned level = 0;  // actnn: 1, 2 or 3
  unsigned bits = 0;   // gact: a width of gact::kBitChoices; fewbit: the solver's 1..4
  /// gact:avgB: GACT's adaptive allocation (gact::allocate_bits), a width per tensor averaging B bits (0: fixed
  /// `bits`). ecosim sees no gradients, so every element is equally sensitive: the tensors' widths differ only
  /// where B is not one of the widths (gact:avg3 mixes 2 and 4 bits).
  double average_bits = 0;
  std::string name() const;
};

/// Whether the step runs under autocast (fp16 matmuls and convolutions): amp, and mesa (which Mesa runs over amp).
bool runs_under_autocast(const Scheme& scheme);

/// "none", "amp", "actnn:L1|L2|L3", "gact:B", "gact:avgB", "mesa", "fewbit:B"; throws ecosim::Error naming the valid
/// forms for an unknown scheme or level, and the kernel module's own message for bits outside its range.
Scheme parse_scheme(std::string_view text);

/// The default list — none, amp, actnn:L3, gact:4, mesa, fewbit:2 — less the schemes that do not apply
/// to `layers`: actnn without convolutions or linears, mesa without attention or LayerNorm (Mesa's models are
/// transformers), fewbit without GELU or SiLU.
std::vector<Scheme> default_schemes(const std::vector<Layer>& layers);

/// One copy of a saved tensor as a scheme stores it (a tensor two savers keep in the same form is stored once).
struct StoredTensor {
  /// `saved` of a layer's weights cast to fp16 by autocast (amp), which autograd saves for the matmuls' backward.
  static constexpr std::size_t kWeightCopy = static_cast<std::size_t>(-1);
  std::size_t saved = 0;        // index into TrainingStep::saved, or kWeightCopy
  std::size_t first_saver = 0;  // the layer that stores it (allocated after its forward)
  std::string form;             // "fp32", "fp16", "int64", "bool", "int8", "mask1", "actnn2", "mesa8", "fewbit2"
  std::uint64_t bytes = 0;
  /// The bytes by element type as kept in DRAM (raw: its dtype; codes and metadata: the types the kernel's
  /// compress record writes, as `compress --trace` stores them).
  std::map<DType, std::uint64_t> kept;
};

struct SchemeStep {
  Scheme scheme;
  std::vector<StoredTensor> stored;
  std::uint64_t activation_bytes = 0;  // Σ stored
  std::uint64_t peak_bytes = 0;        // the top of memory_curve
  std::vector<MemoryPoint> memory_curve;
  /// The kernels' records of compressing each stored copy in the forward and restoring it in the backward,
  /// named "<saver layer>.compress.<kernel pass>" (a cast to fp16 and ActNN's ReLU mask have no kernel: none).
  std::vector<OpRecord> compress, decompress;
  /// The step's backward records under the scheme: TrainingStep::backward, less the own backward of each layer a
  /// decompress record computes the gradient of (Few-Bit's dY × level[code] in place of the activation's f′(x)).
  std::vector<OpRecord> backward;
};

/// `scheme` applied to the saved tensors of `step`, the training step of `layers` whose leading dimension is
/// `batch` (ActNN L3 allocates bits per sample). Throws ecosim::Error for a byte count overflowing 64 bits.
SchemeStep apply_scheme(const Scheme& scheme, const std::vector<Layer>& layers, const TrainingStep& step,
                        std::uint64_t batch);

/// The step as a machine runs it, in order: the forward records; the compression work (the kernels' compress
/// records on chip, ops::on_chip: fused with the producing layer); each stored copy written to DRAM
/// ("<layer>.save_for_backward.<type>", ops::dram_transfer of its kept bytes); each read back
/// ("<layer>.restore.<type>"); the decompression work on chip; the backward records; the update. A scheme so
/// shows as DRAM bits saved against compress/decompress operations added (the model of `compress --trace`).
std::vector<OpRecord> step_records(const TrainingStep& step, const SchemeStep& scheme,
                                   const std::vector<Layer>& layers);
/// The step as PyTorch eager runs it on a GPU: the forward records, each compression kernel as its own pass over
/// device memory (reading the tensor, writing its codes), each decompression kernel, the backward, the update — and
/// no copy of what autograd keeps (a reference to the tensor where it was made).
std::vector<OpRecord> gpu_step_records(const TrainingStep& step, const SchemeStep& scheme);

/// The network at a batch size (a zoo model or a model file rebuilt per batch).
using NetworkAt = std::function<std::vector<Layer>(std::uint64_t batch)>;

struct MaxBatch {
  std::uint64_t batch = 0;       // the largest batch whose step peaks within the memory; 0: not even 1
  std::uint64_t peak_bytes = 0;  // its peak (at batch 1 when none fits)
};

/// The largest batch of `network` whose training step under `scheme` peaks at most `memory_bytes` (peak_bytes
/// grows with the batch: doubling, then bisection). Throws ecosim::Error when more than 2^32 samples fit.
MaxBatch max_batch(const Scheme& scheme, const NetworkAt& network, Optimizer optimizer, std::uint64_t memory_bytes);

}  // namespace ecosim::kernels::schemes
