// ModelZoo: loading and resolving the zoo data file, and dispatch to the family builders.
#include "ecosim/ops_counter/model_zoo.hpp"

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "model_entry.hpp"

namespace ecosim {

namespace embedded {
std::string_view model_zoo_json();
}

namespace detail {

std::uint64_t ModelEntry::uint(const std::string& key) const {
  if (!j_.contains(key) || !j_[key].is_number_unsigned() || j_[key].get<std::uint64_t>() == 0)
    throw Error("model '" + model_ + "': '" + key + "' must be a positive integer");
  return j_[key].get<std::uint64_t>();
}

std::uint64_t ModelEntry::uint(const std::string& key, std::uint64_t max) const {
  const std::uint64_t n = uint(key);
  if (n > max) throw Error("model '" + model_ + "': '" + key + "' must be at most " + std::to_string(max));
  return n;
}

bool ModelEntry::has(const std::string& key) const { return j_.contains(key); }

std::vector<AttentionVariant> ModelEntry::variants(const std::string& key) const {
  if (!j_.contains(key) || !j_[key].is_array() || j_[key].empty())
    throw Error("model '" + model_ + "': '" + key + "' must be a non-empty array of attention variant names");
  std::vector<AttentionVariant> v;
  for (const auto& x : j_[key]) {
    if (!x.is_string()) throw Error("model '" + model_ + "': '" + key + "' must hold variant names");
    v.push_back(attention_variant_named(x.get<std::string>()));
  }
  return v;
}

bool ModelEntry::flag(const std::string& key) const {
  if (!j_.contains(key) || !j_[key].is_boolean())
    throw Error("model '" + model_ + "': '" + key + "' must be true or false");
  return j_[key].get<bool>();
}

std::vector<std::uint64_t> ModelEntry::uints(const std::string& key, std::size_t size, std::uint64_t max) const {
  const bool ok = j_.contains(key) && j_[key].is_array() && (size == 0 || j_[key].size() == size);
  if (!ok)
    throw Error("model '" + model_ + "': '" + key + "' must be an array of " + std::to_string(size) + " integers");
  std::vector<std::uint64_t> v;
  for (const auto& x : j_[key]) {
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

ModelZoo ModelZoo::builtin() { return parse(embedded::model_zoo_json(), "builtin model_zoo.json"); }

ModelZoo ModelZoo::parse(std::string_view json_text, const std::string& origin) {
  ModelZoo zoo;
  zoo.entries_ = parse_json(json_text, origin);
  if (!zoo.entries_.is_object()) throw Error(origin + ": the model zoo must be a JSON object");
  return zoo;
}

ModelZoo ModelZoo::load(const std::string& path) { return parse(read_text_file(path, kMaxJsonDocumentBytes), path); }

ModelZoo ModelZoo::overlaying(const ModelZoo& base) const {
  ModelZoo zoo = base;
  for (const auto& [key, value] : entries_.items()) zoo.entries_[key] = value;
  return zoo;
}

std::vector<std::string> ModelZoo::names() const {
  std::vector<std::string> v;
  for (const auto& [key, value] : entries_.items())
    if (!key.empty() && key.front() != '_') v.push_back(key);
  return v;
}

nlohmann::json ModelZoo::resolved(const std::string& model, int depth) const {
  if (model.empty() || model.front() == '_' || !entries_.contains(model)) {
    std::string valid;
    for (const auto& n : names()) valid += (valid.empty() ? "" : ", ") + n;
    throw Error("unknown model '" + model + "' (valid: " + valid + ")");
  }
  if (depth > 16) throw Error("model '" + model + "': 'extends' chain too long or circular");
  nlohmann::json entry = entries_[model];
  if (!entry.is_object()) throw Error("model '" + model + "': entry must be an object");
  if (!entry.contains("extends")) return entry;
  if (!entry["extends"].is_string()) throw Error("model '" + model + "': 'extends' must be a model name");
  nlohmann::json base = resolved(entry["extends"].get<std::string>(), depth + 1);
  entry.erase("extends");
  base.update(entry);
  return base;
}

std::vector<Layer> ModelZoo::build(const std::string& model, const ModelOptions& options) const {
  const nlohmann::json entry = resolved(model);
  const detail::ModelEntry e(model, entry);
  if (options.batch == 0) throw Error("batch must be positive");
  const auto family = entry.find("family");
  if (family != entry.end() && *family == "hierarchical_vit") return detail::build_hierarchical_vit(e, options);
  if (family != entry.end() && *family == "lra") return detail::build_lra(e, options);
  if (family != entry.end() && *family == "vit") return detail::build_vit(e, options);
  if (family != entry.end() && *family == "swin") return detail::build_swin(e, options);
  if (family != entry.end() && *family == "encoder") return detail::build_encoder(e, options);
  throw Error("model '" + model + "': 'family' must be hierarchical_vit, vit, swin, lra or encoder");
}

bool is_attention(const Layer& layer) {
  return std::holds_alternative<AttentionConfig>(layer.op) || std::holds_alternative<SoftmaxAttention>(layer.op);
}

}  // namespace ecosim
