// Internal: the attention variants' parameters as one table — command-line option, field of AttentionConfig,
// default, help, and the variants each applies to — from which the options, their reading, the check that
// a given option applies to the chosen variants, and the parameters a report records are all derived.
#pragma once
#include <boost/program_options.hpp>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/attention.hpp"

namespace ecosim::cli {

struct VariantParameter {
  std::string_view option;                // command-line name, e.g. "proj-k"
  std::uint64_t AttentionConfig::*field;  // where its value goes
  std::int64_t default_value;
  std::int64_t minimum;                   // 1 for counts, 0 where zero means "none" or "automatic"
  std::string_view help;
  bool (*applies)(AttentionVariant);      // the variants that read it
};

std::span<const VariantParameter> variant_parameters();

/// --bits, --support, --features, --proj-k, --hashes, --chunk, --chunks-before, --sr-ratio, --grid-height,
/// --window, with their defaults.
boost::program_options::options_description variant_parameter_options();
/// Reads every parameter into c; throws ecosim::Error for a value below its minimum.
void read_variant_parameters(const boost::program_options::variables_map& vm, AttentionConfig& c);
/// Throws ecosim::Error when a parameter given on the command line applies to none of `variants`.
void check_parameters_apply(const boost::program_options::variables_map& vm,
                            std::span<const AttentionVariant> variants);
/// The parameters that apply to c.variant, by JSON name ("proj_k"), with their values.
nlohmann::json describe_parameters(const AttentionConfig& c);

}  // namespace ecosim::cli
