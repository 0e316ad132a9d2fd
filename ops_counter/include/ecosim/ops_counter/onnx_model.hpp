// An ONNX model imported as the layers the op counter counts (ecosim::onnx_import): every node mapped to the
// zoo's layer kinds where one fits (so an exported zoo model counts as the zoo counts it), GELU and decomposed
// LayerNorm recognised, and softmax attention blocks found so that another variant can replace them.
// Rules and limits: ops_counter/README.md, "ONNX import".
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/ops_counter/layers.hpp"

namespace ecosim {

struct OnnxImportOptions {
  /// Largest model file read (the whole file is held in memory); the CLI's --onnx-max-bytes.
  std::uint64_t max_file_bytes = std::uint64_t{256} << 20;
  /// Refuse unknown op types instead of counting them as zero (--strict).
  bool strict = false;
};

/// One attention block found: the graph's node names from the scores MatMul to the context MatMul, and its
/// shapes (queries and keys may differ, e.g. PVT's spatial reduction).
struct FoundAttention {
  std::vector<std::string> nodes;
  SoftmaxAttention shape;
  /// The layers scaling its Q or Kᵀ by a scalar before the scores (nn.MultiheadAttention's q / √E, PyTorch 2's
  /// decomposed SDPA's √scale on each): counted as the graph computes them, dropped with the block when it is
  /// swapped (a variant's own scaling is in its count).
  std::vector<std::string> operand_scale_layers = {};
};

struct OnnxModel {
  std::string origin;  // the file, for messages and reports
  /// The graph's layers in execution order, each found attention block as one SoftmaxAttention layer.
  std::vector<Layer> layers;
  std::vector<FoundAttention> attention;  // in the order of their layers
  /// Op types the importer does not know, with their node counts (counted as zero).
  std::map<std::string, std::uint64_t> unknown_ops;
  /// Softmax nodes of attention (their probabilities multiply an activation) in no found block: counted by the
  /// one-node rules (MatMul products, the scale and mask as elementwise ops), never swapped.
  std::vector<std::string> unmatched_attention;
  /// The leading dimension of the graph's first input: the export's batch (1 for an input without dimensions).
  std::uint64_t batch = 1;
  /// Nodes that show an inference export: a BatchNormalization in inference form (one output, no training_mode,
  /// constant running statistics; a training export's keeps its running-statistics outputs, and a BatchNorm
  /// without running statistics is fed batch statistics the graph computes), or a Conv whose weight and bias PyTorch's
  /// exporter folded (initializers it names onnx::Conv_*: a BatchNorm folded into it). An inference export folds
  /// BatchNorm into a preceding Conv and drops Dropout: a training step of it misses their saved tensors.
  std::vector<std::string> inference_export_nodes;
  /// Scale initializers that several LayerNormalization or BatchNormalization nodes read: a model sharing its
  /// norms, or an inference export, whose exporter merges initializers of equal values (a fresh model's γ = 1):
  /// the training step then counts their parameters once.
  std::vector<std::string> shared_norm_scales;
};

/// True when ecosim was built with ONNX support (ECOSIM_ONNX).
bool onnx_supported();

/// Reads the model at `path` (at most options.max_file_bytes; external-data files are never opened: a tensor
/// stored externally contributes its dims only). Throws ecosim::Error for an unreadable, truncated, cyclic or
/// hostile model, missing or unusable shapes, an unknown op under options.strict, or when built without ONNX.
OnnxModel import_onnx(const std::string& path, const OnnxImportOptions& options = {});
/// The same for a model already in memory; `origin` names it in messages.
OnnxModel parse_onnx(std::string_view bytes, const std::string& origin, const OnnxImportOptions& options = {});

/// The layers counted: `model.layers`, each found attention block replaced by `swap` (its variant and
/// parameters, with the block's batch, heads, queries, keys, causality and head width; no projections: the
/// graph's own projections stay; its operand_scale_layers go, the layers reading them reading what they read)
/// when given. Throws ecosim::Error naming the block and the reason when the
/// variant cannot serve a block (queries ≠ keys, a causal block, its parameters), and naming the Softmax nodes
/// when the model has attention in no found block (model.unmatched_attention: a swap would leave it). A found block's
/// layer is named "<first node>..<last node>" (the export's own softmax attention), a swapped one
/// "<first node>..<last node>[<variant>]".
std::vector<Layer> onnx_layers(const OnnxModel& model, const std::optional<AttentionConfig>& swap);

/// `layers` (an imported model's, native attention) under fvcore's rules, counted in the paper convention:
/// Conv2d, ConvTranspose2d (their biases dropped), Linear and Matmul kept, each found attention block as its
/// scores and context Matmuls, every other layer dropped. Throws ecosim::Error for a swapped attention variant.
std::vector<Layer> fvcore_layers(const std::vector<Layer>& layers);

/// The warning for model.unmatched_attention ("" when none): the Softmax nodes named, and what they count as.
std::string unmatched_attention_warning(const OnnxModel& model);

/// The note for a swap to `variant` ("" when none applies): the found blocks that add a non-causal mask or a bias
/// to their scores (a padding or window mask, Swin's relative-position bias) — the variant forms no score
/// matrix, so the swapped count leaves those terms out; causal masks are carried over (AttentionConfig::causal);
/// and, for a variant sharing one q/k projection (the EcoFormer family, Reformer), that the export's key
/// projections stay counted.
std::string swap_dropped_terms_note(const OnnxModel& model, AttentionVariant variant);

/// "Name ×count, ..." of the unknown op types ("" when none).
std::string unknown_op_summary(const OnnxModel& model);

}  // namespace ecosim
