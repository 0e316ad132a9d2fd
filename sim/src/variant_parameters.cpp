// The variant parameter options, their reading and applicability, and the variant list, from the registry.
#include "variant_parameters.hpp"

#include <fmt/core.h>
#include <algorithm>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

namespace po = boost::program_options;

namespace {

std::string readers(VariantParameterId id) {
  std::string names;
  for (const VariantInfo& row : variant_registry())
    if (row.parameters.contains(id)) names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

}  // namespace

po::options_description variant_parameter_options() {
  po::options_description o("Attention variant parameters");
  for (const VariantParameter& p : kVariantParameters)
    o.add_options()(p.option().c_str(),
                    po::value<std::int64_t>()->default_value(static_cast<std::int64_t>(p.default_value)),
                    fmt::format("{}, {}..{}; read by {}", p.help, p.minimum, p.maximum, readers(p.id)).c_str());
  return o;
}

void read_variant_parameters(const po::variables_map& vm, AttentionConfig& c) {
  for (const VariantParameter& p : kVariantParameters) {
    const std::int64_t v = vm[p.option()].as<std::int64_t>();
    if (v < 0 || static_cast<std::uint64_t>(v) < p.minimum || static_cast<std::uint64_t>(v) > p.maximum)
      throw Error(fmt::format("--{} must be an integer in {}..{}, got {}", p.option(), p.minimum, p.maximum, v));
    c.parameter(p.id) = static_cast<std::uint64_t>(v);
  }
}

void check_parameters_apply(const po::variables_map& vm, std::span<const AttentionVariant> variants) {
  for (const VariantParameter& p : kVariantParameters) {
    const std::string key = p.option();
    if (!vm.count(key) || vm[key].defaulted()) continue;
    if (std::any_of(variants.begin(), variants.end(),
                    [&](AttentionVariant v) { return variant_info(v).parameters.contains(p.id); }))
      continue;
    std::string chosen;
    for (AttentionVariant v : variants) chosen += (chosen.empty() ? "" : ", ") + std::string(name(v));
    throw Error(fmt::format("--{} applies to {} only, not to {}", key, readers(p.id),
                            chosen.empty() ? std::string("the model's own attention") : chosen));
  }
}

std::vector<const VariantParameter*> model_layout_parameters() {
  std::vector<const VariantParameter*> layout;
  for (const VariantParameter& p : kVariantParameters)
    if (p.id == VariantParameterId::window || p.id == VariantParameterId::sr_ratio ||
        p.id == VariantParameterId::grid_height)
      layout.push_back(&p);
  return layout;
}

std::optional<std::uint64_t> model_window(const ModelZoo& zoo, const std::string& model) {
  const nlohmann::json entry = zoo.resolved(model);  // a bad value is the model build's error
  if (const auto w = entry.find("sliding_window"); w != entry.end() && w->is_number_unsigned() && *w != 0)
    return w->get<std::uint64_t>();
  return std::nullopt;
}

void take_model_window(const ModelZoo& zoo, const std::string& model, AttentionConfig& c) {
  if (const std::optional<std::uint64_t> w = model_window(zoo, model)) c.sliding_window = *w;
}

void take_model_window(const po::variables_map& vm, const ModelZoo& zoo, const std::string& model, AttentionConfig& c) {
  if (vm[variant_parameter(VariantParameterId::sliding_window).option()].defaulted())
    return take_model_window(zoo, model, c);
  if (const std::optional<std::uint64_t> own = model_window(zoo, model);
      own && c.variant == AttentionVariant::sliding && c.sliding_window > *own)
    fmt::print(stderr,
               "note: a sliding window of {} tokens (--sliding-window) is wider than {}'s own {}: it attends keys the "
               "model never attends\n",
               c.sliding_window, model, *own);
}

nlohmann::json describe_parameters(const AttentionConfig& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const VariantParameter& p : kVariantParameters)
    if (variant_info(c.variant).parameters.contains(p.id)) j[std::string(p.name)] = c.parameter(p.id);
  return j;
}

void read_described_parameters(const nlohmann::json& j, AttentionConfig& c, const std::string& origin) {
  if (!j.is_object()) throw Error(origin + ": is not an object of parameter values");
  const VariantInfo& info = variant_info(c.variant);
  for (const auto& [key, value] : j.items())
    if (std::none_of(kVariantParameters.begin(), kVariantParameters.end(),
                     [&](const VariantParameter& p) { return p.name == key && info.parameters.contains(p.id); }))
      throw Error(fmt::format("{}: '{}' is not a parameter of {}", origin, key, info.name));
  for (const VariantParameter& p : kVariantParameters) {
    if (!info.parameters.contains(p.id)) continue;
    const std::string key(p.name);
    if (!j.contains(key)) throw Error(fmt::format("{}: lacks '{}', which {} reads", origin, key, info.name));
    const nlohmann::json& v = j.at(key);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < p.minimum || v.get<std::uint64_t>() > p.maximum)
      throw Error(
          fmt::format("{}: '{}' must be an integer in {}..{}, got {}", origin, key, p.minimum, p.maximum, v.dump()));
    c.parameter(p.id) = v.get<std::uint64_t>();
  }
}

std::string variant_names(bool (*pick)(const VariantInfo&), std::string_view separator) {
  std::string names;
  for (const VariantInfo& row : variant_registry())
    if (pick(row)) names += (names.empty() ? "" : std::string(separator)) + std::string(row.name);
  return names;
}

std::string variant_list_help() {
  std::string text =
      "Attention variants, each with its parameters as --option default (range); a count-only variant has no "
      "kernel:\nit is counted, traced and replayed, but not run (`run`, `compare` without --model).\n";
  for (const VariantInfo& row : variant_registry()) {
    text += fmt::format("  {:<16}{}{}\n", row.name, row.count_only() ? "[count-only] " : "", row.description);
    std::string parameters;
    for (const VariantParameter& p : kVariantParameters)
      if (row.parameters.contains(p.id))
        parameters += fmt::format("  --{} {} ({}..{})", p.option(), p.default_value, p.minimum, p.maximum);
    if (!parameters.empty()) text += std::string(16, ' ') + parameters + "\n";
  }
  return text;
}

}  // namespace ecosim::cli
