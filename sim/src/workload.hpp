// Internal: the workload options shared by count, trace (and later run/compare) — a zoo model or a single
// attention layer, the attention variant and its parameters, convention and scope — and their parsing.
#pragma once
#include <boost/program_options.hpp>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/model_zoo.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"

namespace ecosim::cli {

namespace po = boost::program_options;

struct Workload {
  std::string model;  // zoo model; empty = one attention layer (`layer`) or an ONNX model
  std::string onnx;   // --onnx: the imported model's file; empty = none
  std::shared_ptr<const OnnxModel> onnx_model;
  std::optional<AttentionConfig> onnx_swap;  // --onnx: the variant replacing its attention blocks (none: native)
  std::string model_file;                    // --model-file: the user's zoo file; empty = none
  std::string hf_config;                     // --hf-config: a Hugging Face config.json (then `model` is its path)
  ModelZoo zoo = ModelZoo::builtin();        // where `model` is looked up: the user's models over the built-in ones
  ModelOptions model_options;
  AttentionConfig layer;  // the attention layer, or the variant parameters for a model
  Convention convention = Convention::paper;
  bool attention_scope = false;  // count only attention layers (projections included)
  bool fvcore_rules = false;     // --onnx --rules fvcore: conv, linear and matmul MACs only (fvcore_layers)

  /// One attention layer (--layer attention), neither a zoo model nor an ONNX model.
  bool single_layer() const { return model.empty() && onnx.empty(); }
  nlohmann::json describe() const;
  /// The layers counted: the model's (filtered by scope) or the single attention layer.
  std::vector<Layer> layers() const;
  /// Every layer's records, in `convention`, to `sink`.
  void emit_records(OpSink& sink) const;
  /// A decoder model's parameters, KV-cache bytes and traffic, MACs per token; none for other workloads.
  std::optional<DecoderFacts> decoder_facts() const;
};

/// --model-file FILE: a user's zoo file whose models are looked up before the built-in ones.
po::options_description model_file_option();
/// The built-in zoo, under the models of --model-file when given (throws ecosim::Error for a bad file).
ModelZoo model_zoo(const po::variables_map& vm);

/// --hf-config FILE and the decoder phase options (--phase, --context, --tokens, --kv-dtype, --weight-dtype).
po::options_description decoder_options();
/// The phase options into `o` (each refused where it does not apply); `--seq` given with --phase prefill is the
/// prefill length (as --seq-len).
void parse_decoder_phase(const po::variables_map& vm, ModelOptions& o);

/// --onnx FILE, --strict, --onnx-max-bytes.
po::options_description onnx_options();
/// Reads the --onnx options into `w` (whose attention variant and parameters are already read): imports the
/// model, warns on stderr about unknown op types; throws ecosim::Error.
void parse_onnx_workload(const po::variables_map& vm, Workload& w);

/// --model/--model-file/--layer/--onnx, --attention, --convention (default `convention`: paper for count, which
/// reproduces the papers' figures; exact for trace, whose traces replay), --scope, shapes and variant parameters.
po::options_description workload_options(Convention convention);
/// Reads the options above; throws ecosim::Error for missing, contradictory or out-of-range values.
Workload parse_workload(const po::variables_map& vm);

/// Notes on stderr where a variant is not what its user may think, each once, for the first such layer: Linformer
/// projecting a layer's keys up, to more rows than it has (k above the keys: the counts are right, but the variant
/// then costs more than softmax attention); the sliding window, a causal band, over a block that is not causal;
/// LSA padding its token grid to more than twice its tokens.
void note_attention_choices(const std::vector<Layer>& layers);

/// Throws ecosim::Error when one of `keys` was given on the command line (not merely defaulted): it is for
/// `applies_to` only.
void reject_given(const po::variables_map& vm, std::initializer_list<std::string_view> keys,
                  std::string_view applies_to);
/// --window, --sr-ratio and --grid-height with a zoo model: refused (its lsa and sra blocks take the model's own).
void reject_model_layout_options(const po::variables_map& vm);

/// A strictly positive integer option (parsed signed, so "-3" is rejected rather than wrapped).
std::uint64_t positive(const po::variables_map& vm, const std::string& key);
/// The items of a comma-separated value of --`option`; an empty value or an empty item (`msa,`, `a,,b`) is an error
/// (a trailing comma's empty item was dropped, a leading one refused).
std::vector<std::string> comma_items(const std::string& text, const std::string& option);
/// The int64 option `key`, which must be ≥ 0 (a seed: read as unsigned, -1 wrapped to 2⁶⁴ − 1).
std::uint64_t non_negative(const po::variables_map& vm, const std::string& key);

/// `args` with a first argument that is not an option taken as the value of `--<option>` (`replay t.jsonl`,
/// `sweep spec.json`).
std::vector<std::string> leading_argument_as(const std::vector<std::string>& args, const std::string& option);

/// Parses `args` against `options`; on --help prints the usage line, the options and `help_epilogue`, and
/// returns false.
bool parse_args(const std::vector<std::string>& args, const po::options_description& options, po::variables_map& vm,
                const std::string& usage_line, const std::string& help_epilogue = "");

}  // namespace ecosim::cli
