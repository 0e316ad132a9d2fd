// The attention variants' parameter table and everything derived from it.
#include "variant_parameters.hpp"

#include <algorithm>
#include <array>
#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

namespace po = boost::program_options;

namespace {

bool hashed(AttentionVariant v) { return is_hashed(v); }
bool performer(AttentionVariant v) { return v == AttentionVariant::performer; }
bool linformer(AttentionVariant v) { return v == AttentionVariant::linformer; }
bool reformer(AttentionVariant v) { return v == AttentionVariant::reformer; }
bool sra(AttentionVariant v) { return v == AttentionVariant::sra; }
bool lsa(AttentionVariant v) { return v == AttentionVariant::lsa; }
bool grid(AttentionVariant v) { return sra(v) || lsa(v); }

constexpr std::array kParameters = {
    VariantParameter{"bits", &AttentionConfig::bits, 16, 1, "EcoFormer hash bits b (1..64)", &hashed},
    VariantParameter{"support", &AttentionConfig::support, 25, 1, "EcoFormer kernel anchors m (≤ N)", &hashed},
    VariantParameter{"features", &AttentionConfig::features, 256, 1, "Performer random features", &performer},
    VariantParameter{"proj-k", &AttentionConfig::proj_k, 256, 1, "Linformer projected length k", &linformer},
    VariantParameter{"hashes", &AttentionConfig::hashes, 2, 1, "Reformer hash rounds", &reformer},
    VariantParameter{"chunk", &AttentionConfig::chunk, 64, 1, "Reformer chunk length", &reformer},
    VariantParameter{"chunks-before", &AttentionConfig::chunks_before, 1, 0,
                     "Reformer chunks attended before each chunk", &reformer},
    VariantParameter{"sr-ratio", &AttentionConfig::sr_ratio, 8, 1, "SRA reduction conv kernel = stride (one layer)",
                     &sra},
    VariantParameter{"grid-height", &AttentionConfig::grid_height, 0, 0,
                     "SRA/LSA token grid height (0: most nearly square)", &grid},
    VariantParameter{"window", &AttentionConfig::window, 7, 1, "LSA window side (one layer)", &lsa},
};

std::string json_name(std::string_view option) {
  std::string s(option);
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

}  // namespace

std::span<const VariantParameter> variant_parameters() { return kParameters; }

po::options_description variant_parameter_options() {
  po::options_description o("Attention variant parameters");
  for (const VariantParameter& p : kParameters)
    o.add_options()(std::string(p.option).c_str(), po::value<std::int64_t>()->default_value(p.default_value),
                    std::string(p.help).c_str());
  return o;
}

void read_variant_parameters(const po::variables_map& vm, AttentionConfig& c) {
  for (const VariantParameter& p : kParameters) {
    const std::int64_t v = vm[std::string(p.option)].as<std::int64_t>();
    if (v < p.minimum)
      throw Error(fmt::format("--{} must be {}, got {}", p.option, p.minimum ? "a positive integer" : "≥ 0", v));
    c.*p.field = static_cast<std::uint64_t>(v);
  }
}

void check_parameters_apply(const po::variables_map& vm, std::span<const AttentionVariant> variants) {
  for (const VariantParameter& p : kParameters) {
    const std::string key(p.option);
    if (!vm.count(key) || vm[key].defaulted()) continue;
    if (std::any_of(variants.begin(), variants.end(), p.applies)) continue;
    std::string names;
    for (AttentionVariant v : all_attention_variants())
      if (p.applies(v)) names += (names.empty() ? "" : ", ") + std::string(name(v));
    std::string chosen;
    for (AttentionVariant v : variants) chosen += (chosen.empty() ? "" : ", ") + std::string(name(v));
    throw Error(fmt::format("--{} applies to {} only, not to {}", p.option, names,
                            chosen.empty() ? std::string("the model's own attention") : chosen));
  }
}

nlohmann::json describe_parameters(const AttentionConfig& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const VariantParameter& p : kParameters)
    if (p.applies(c.variant)) j[json_name(p.option)] = c.*p.field;
  return j;
}

}  // namespace ecosim::cli
