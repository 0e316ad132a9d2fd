// Internal: the command-line face of the variant registry (ecosim/ops_counter/variant_registry.hpp) — the
// variant parameter options with their defaults, ranges and help, their reading, the check that a given
// option applies to the chosen variants, the parameters a report records, and the variant list of --help.
#pragma once
#include <boost/program_options.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/model_zoo.hpp"

namespace ecosim::cli {

/// --bits, --support, --features, --proj-k, --hashes, --chunk, --chunks-before, --sr-ratio, --grid-height,
/// --window: one per registry parameter, with its default, range and the variants that read it.
boost::program_options::options_description variant_parameter_options();
/// Reads every parameter into c; throws ecosim::Error for a value outside its range.
void read_variant_parameters(const boost::program_options::variables_map& vm, AttentionConfig& c);
/// Throws ecosim::Error when a parameter given on the command line applies to none of `variants`.
void check_parameters_apply(const boost::program_options::variables_map& vm,
                            std::span<const AttentionVariant> variants);
/// The parameters a zoo model's lsa and sra blocks take from the model itself, stage by stage (window, sr_ratio,
/// grid_height): given with a zoo model (an option, a sweep variant's key), they are refused.
std::vector<const VariantParameter*> model_layout_parameters();
/// The window of zoo model `model`'s own attention (Mistral's sliding_window, 4096), when it has one.
std::optional<std::uint64_t> model_window(const ModelZoo& zoo, const std::string& model);
/// Sets c's sliding window to the window of zoo model `model`'s own attention, when it has one (Phi-3's 2047),
/// for a caller whose sliding window was not given: swapped in, `sliding` then keeps the model's window rather
/// than the variant's default.
void take_model_window(const ModelZoo& zoo, const std::string& model, AttentionConfig& c);
/// The same unless --sliding-window was given on the command line; one given wider than the model's own is noted
/// on stderr (it attends keys the model never attends).
void take_model_window(const boost::program_options::variables_map& vm, const ModelZoo& zoo, const std::string& model,
                       AttentionConfig& c);
/// The parameters that c.variant reads, by JSON name ("proj_k"), with their values.
nlohmann::json describe_parameters(const AttentionConfig& c);
/// The inverse of describe_parameters: reads every parameter c.variant reads from `j` into c; throws
/// ecosim::Error, naming `origin`, for one missing, not an integer in its range, or one the variant does not read.
void read_described_parameters(const nlohmann::json& j, AttentionConfig& c, const std::string& origin);
/// The names of the variants for which `pick` holds, joined by `separator`.
std::string variant_names(bool (*pick)(const VariantInfo&), std::string_view separator);
/// --help's list of the variants: each with its description, whether it is count-only, and its parameters
/// with default and range.
std::string variant_list_help();

}  // namespace ecosim::cli
