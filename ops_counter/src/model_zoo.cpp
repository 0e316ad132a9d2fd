// ModelZoo: loading the zoo data files, resolving `extends` chains, refusing any key an entry's family does not
// have (naming its file), and dispatch to the family builders.
#include "ecosim/ops_counter/model_zoo.hpp"

#include <algorithm>
#include <array>

#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "model_entry.hpp"

namespace ecosim {

namespace embedded {
std::string_view model_zoo_json();
}

namespace detail {

const nlohmann::json* ModelEntry::value(const std::string& key) const {
  if (std::find(family_.keys.begin(), family_.keys.end(), key) == family_.keys.end())
    throw Error(
        fmt::format("model zoo: the {} builder reads '{}', which is not one of its family's keys", family_.name, key));
  const auto it = j_.find(key);
  return it == j_.end() ? nullptr : &*it;
}

std::string ModelEntry::field(const std::string& key) const {
  const auto fields = j_.find("_fields");
  if (fields != j_.end() && fields->is_object() && fields->contains(key) && (*fields)[key].is_string())
    return "'" + (*fields)[key].get<std::string>() + "'";
  return "'" + key + "'";
}

std::uint64_t ModelEntry::uint(const std::string& key) const {
  const nlohmann::json* v = value(key);
  if (!v || !v->is_number_unsigned() || v->get<std::uint64_t>() == 0)
    throw Error("model '" + model_ + "': " + field(key) + " must be a positive integer" +
                (v ? ", got " + v->dump() : ""));
  return v->get<std::uint64_t>();
}

std::uint64_t ModelEntry::uint(const std::string& key, std::uint64_t max) const {
  const std::uint64_t n = uint(key);
  if (n > max)
    throw Error("model '" + model_ + "': " + field(key) + " must be at most " + std::to_string(max) + ", got " +
                std::to_string(n));
  return n;
}

bool ModelEntry::has(const std::string& key) const { return value(key) != nullptr; }

std::string ModelEntry::text(const std::string& key, std::span<const std::string_view> allowed) const {
  const nlohmann::json* v = value(key);
  std::string names;
  for (std::string_view a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
  if (v && v->is_string() && std::find(allowed.begin(), allowed.end(), v->get<std::string>()) != allowed.end())
    return v->get<std::string>();
  throw Error("model '" + model_ + "': " + field(key) + " must be one of " + names + (v ? ", got " + v->dump() : ""));
}

double ModelEntry::fraction(const std::string& key) const {
  const nlohmann::json* v = value(key);
  if (!v || !v->is_number() || !(v->get<double>() > 0 && v->get<double>() <= 1))
    throw Error("model '" + model_ + "': " + field(key) + " must be a number in (0, 1]" +
                (v ? ", got " + v->dump() : ""));
  return v->get<double>();
}

std::vector<AttentionVariant> ModelEntry::variants(const std::string& key) const {
  const nlohmann::json* list = value(key);
  if (!list || !list->is_array() || list->empty())
    throw Error("model '" + model_ + "': '" + key + "' must be a non-empty array of attention variant names");
  std::vector<AttentionVariant> v;
  for (const auto& x : *list) {
    if (!x.is_string()) throw Error("model '" + model_ + "': '" + key + "' must hold variant names");
    v.push_back(attention_variant_named(x.get<std::string>()));
  }
  return v;
}

bool ModelEntry::flag(const std::string& key) const {
  const nlohmann::json* v = value(key);
  if (!v || !v->is_boolean()) throw Error("model '" + model_ + "': " + field(key) + " must be true or false");
  return v->get<bool>();
}

std::vector<std::uint64_t> ModelEntry::uints(const std::string& key, std::size_t size, std::uint64_t max) const {
  const nlohmann::json* list = value(key);
  if (!list || !list->is_array() || (size != 0 && list->size() != size))
    throw Error("model '" + model_ + "': '" + key + "' must be an array of " + std::to_string(size) + " integers");
  std::vector<std::uint64_t> v;
  for (const auto& x : *list) {
    if (!x.is_number_unsigned()) throw Error("model '" + model_ + "': '" + key + "' must hold non-negative integers");
    if (x.get<std::uint64_t>() > max)
      throw Error("model '" + model_ + "': '" + key + "' must hold integers up to " + std::to_string(max));
    v.push_back(x.get<std::uint64_t>());
  }
  return v;
}

AttentionConfig block_attention(const ModelOptions& o, bool keep_msa, std::uint64_t tokens, std::uint64_t heads,
                                std::uint64_t head_dim, std::uint64_t width, TokenLayout layout) {
  AttentionConfig a = o.attention;
  if (keep_msa) a.variant = AttentionVariant::msa;
  if (a.variant == AttentionVariant::sra) {
    if (layout.sr_ratio == 0) throw Error("sra (spatial-reduction attention) needs a model with sr_ratios");
    a.sr_ratio = layout.sr_ratio;
    a.grid_height = layout.grid_height;
  }
  if (a.variant == AttentionVariant::lsa) {
    if (layout.window == 0) throw Error("lsa (locally-grouped attention) needs a model with lsa_window");
    a.window = layout.window;
    a.grid_height = layout.grid_height;
  }
  a.batch = o.batch;
  a.seq = tokens;
  a.heads = heads;
  a.head_dim = head_dim;
  a.embed_dim = width;
  a.projections = true;
  a.validate();
  return a;
}

std::uint64_t head_width(const ModelEntry& e, std::uint64_t width, std::uint64_t heads) {
  if (heads == 0 || width % heads) throw Error("model '" + e.model() + "': embed dim not divisible by heads");
  return width / heads;
}

std::vector<AttentionVariant> native_variants(const ModelEntry& e, const ModelOptions& o) {
  return o.native_attention ? e.variants("native_attention") : std::vector<AttentionVariant>{};
}

ModelOptions block_options(const ModelOptions& o, const std::vector<AttentionVariant>& native, std::uint64_t index) {
  ModelOptions b = o;
  if (o.native_attention) b.attention.variant = native[index % native.size()];
  return b;
}

}  // namespace detail

namespace {

constexpr std::array<const detail::ModelFamily*, 8> kFamilies = {
    &detail::kHierarchicalVitFamily, &detail::kVitFamily,     &detail::kSwinFamily,   &detail::kLraFamily,
    &detail::kEncoderFamily,         &detail::kDecoderFamily, &detail::kResnetFamily, &detail::kVggFamily};
/// Keys of every entry whatever its family.
constexpr std::array<std::string_view, 2> kCommonKeys = {"family", "extends"};
/// Entries of an `extends` chain beyond this are an error (a chain that long is circular).
constexpr std::size_t kMaxExtends = 16;

bool is_comment(std::string_view key) { return key.starts_with('_'); }

/// The family named by the resolved `entry` of `model`.
const detail::ModelFamily& family_of(const nlohmann::json& entry, const std::string& model) {
  const auto family = entry.find("family");
  for (const detail::ModelFamily* f : kFamilies)
    if (family != entry.end() && *family == f->name) return *f;
  std::string names;
  for (std::size_t i = 0; i < kFamilies.size(); ++i)
    names += fmt::format("{}{}", i == 0 ? "" : i + 1 == kFamilies.size() ? " or " : ", ", kFamilies[i]->name);
  throw Error("model '" + model + "': 'family' must be " + names);
}

}  // namespace

ModelZoo ModelZoo::builtin() {
  ModelZoo zoo = parse(embedded::model_zoo_json(), "builtin model_zoo.json");
  for (const std::string& model : zoo.names()) (void)zoo.resolved(model);
  return zoo;
}

ModelZoo ModelZoo::parse(std::string_view json_text, const std::string& origin) {
  ModelZoo zoo;
  zoo.entries_ = parse_json(json_text, origin);
  if (!zoo.entries_.is_object()) throw Error(origin + ": the model zoo must be a JSON object");
  for (const auto& [key, value] : zoo.entries_.items()) zoo.origins_[key] = origin;
  return zoo;
}

ModelZoo ModelZoo::load(const std::string& path) { return parse(read_text_file(path, kMaxJsonDocumentBytes), path); }

ModelZoo ModelZoo::overlaying(const ModelZoo& base) const {
  ModelZoo zoo = base;
  for (const auto& [key, value] : entries_.items()) {
    zoo.entries_[key] = value;
    zoo.origins_[key] = origins_.at(key);
  }
  for (const std::string& model : names()) (void)zoo.resolved(model);
  return zoo;
}

std::vector<std::string> ModelZoo::names() const {
  std::vector<std::string> v;
  for (const auto& [key, value] : entries_.items())
    if (!key.empty() && !is_comment(key)) v.push_back(key);
  return v;
}

const nlohmann::json& ModelZoo::entry(const std::string& model) const {
  if (model.empty() || is_comment(model) || !entries_.contains(model)) {
    std::string valid;
    for (const auto& n : names()) valid += (valid.empty() ? "" : ", ") + n;
    throw Error("unknown model '" + model + "' (valid: " + valid + ")");
  }
  const nlohmann::json& e = entries_[model];
  if (!e.is_object()) throw Error("model '" + model + "': entry must be an object");
  return e;
}

std::vector<std::string> ModelZoo::extends_chain(const std::string& model) const {
  std::vector<std::string> chain{model};
  for (;;) {
    const nlohmann::json& link = entry(chain.back());
    const auto extends = link.find("extends");
    if (extends == link.end()) break;
    if (!extends->is_string()) throw Error("model '" + chain.back() + "': 'extends' must be a model name");
    if (chain.size() > kMaxExtends) throw Error("model '" + model + "': 'extends' chain too long or circular");
    chain.push_back(extends->get<std::string>());
  }
  return chain;
}

nlohmann::json ModelZoo::resolved(const std::string& model) const {
  const std::vector<std::string> chain = extends_chain(model);
  nlohmann::json merged = nlohmann::json::object();
  for (auto link = chain.rbegin(); link != chain.rend(); ++link) merged.update(entry(*link));
  merged.erase("extends");
  const detail::ModelFamily& family = family_of(merged, model);
  std::vector<std::string_view> known(family.keys.begin(), family.keys.end());
  known.insert(known.end(), kCommonKeys.begin(), kCommonKeys.end());
  for (const std::string& link : chain)
    for (const auto& [key, value] : entry(link).items())
      if (!is_comment(key) && std::find(known.begin(), known.end(), key) == known.end())
        throw Error(
            fmt::format("{}: {}.{}: {}", origins_.at(link), link, key,
                        unknown_key_problem(key, known, fmt::format("unknown key for family '{}'", family.name))));
  return merged;
}

std::vector<Layer> ModelZoo::build(const std::string& model, const ModelOptions& options) const {
  const nlohmann::json entry = resolved(model);
  if (options.batch == 0) throw Error("batch must be positive");
  const detail::ModelFamily& family = family_of(entry, model);
  if (!family.facts && options.phase.phase != Phase::model_default)
    throw Error("model '" + model + "' is not a decoder (family '" + std::string(family.name) +
                "'): a prefill or decode phase applies to the decoder family only");
  return family.build(detail::ModelEntry(model, entry, family), options);
}

std::optional<DecoderFacts> ModelZoo::decoder_facts(const std::string& model, const ModelOptions& options) const {
  const nlohmann::json entry = resolved(model);
  const detail::ModelFamily& family = family_of(entry, model);
  if (!family.facts) return std::nullopt;
  if (options.batch == 0) throw Error("batch must be positive");
  return family.facts(detail::ModelEntry(model, entry, family), options);
}

bool is_attention(const Layer& layer) {
  return layer.attention_part || std::holds_alternative<AttentionConfig>(layer.op) ||
         std::holds_alternative<SoftmaxAttention>(layer.op);
}

bool has_attention(const std::vector<Layer>& layers) { return std::any_of(layers.begin(), layers.end(), is_attention); }

}  // namespace ecosim
