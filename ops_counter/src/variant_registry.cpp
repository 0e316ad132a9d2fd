// The attention variants' registry table, and the name lookups derived from it.
#include "ecosim/ops_counter/variant_registry.hpp"

#include <algorithm>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

namespace {

using P = VariantParameterId;
using V = AttentionVariant;

constexpr ParameterSet kNone{};
constexpr ParameterSet kKernelHash{P::bits, P::support};

// clang-format off
constexpr std::array<VariantInfo, 12> kRegistry = {{
//  variant            name              description
//    parameters                          shares_qk hashed has_kernel compared_by_default separate_keys causal_form recurrent
    {V::msa,            "msa",            "softmax multi-head self-attention over all N keys",
     kNone,                               false,    false, true,      true, true, true, false},
    {V::performer,      "performer",      "Performer (FAVOR+): softmax kernel by positive random features, linear in N",
     {P::features},                       false,    false, true,      true, true, true, true},
    {V::linformer,      "linformer",      "Linformer: keys and values projected from N to k rows, then softmax",
     {P::proj_k},                         false,    false, true,      true, true, false, false},
    {V::reformer,       "reformer",       "Reformer: LSH buckets of shared queries/keys, softmax within sorted chunks",
     {P::hashes, P::chunk, P::chunks_before}, true, false, true,      true, false, true, false},
    {V::ecoformer,      "ecoformer",      "EcoFormer: learned kernelized hashing (KSH) to binary codes, attention by additions",
     kKernelHash,                         true,     true,  true,      true, false, true, true},
    {V::fp_ecoformer,   "fp-ecoformer",   "EcoFormer ablation: the learned KSH projection kept real (no sign, no codes)",
     kKernelHash,                         true,     true,  true,      false, false, true, true},
    {V::bi_ecoformer,   "bi-ecoformer",   "EcoFormer ablation: codes are the signs of the d features (b = head width)",
     kNone,                               true,     true,  true,      false, false, true, true},
    {V::lsh_ecoformer,  "lsh-ecoformer",  "EcoFormer ablation: random-hyperplane LSH codes instead of KSH",
     {P::bits},                           true,     true,  true,      false, false, true, true},
    {V::klsh_ecoformer, "klsh-ecoformer", "EcoFormer ablation: kernelized LSH (random projection of the anchor kernel)",
     kKernelHash,                         true,     true,  true,      false, false, true, true},
    {V::sra,            "sra",            "PVTv2 spatial-reduction attention: keys/values from a strided conv of the grid",
     {P::sr_ratio, P::grid_height},       false,    false, false,     false, false, false, false},
    {V::lsa,            "lsa",            "Twins locally-grouped attention: softmax within window × window groups",
     {P::grid_height, P::window},         false,    false, true,      false, false, false, false},
    {V::sliding,        "sliding",        "sliding-window attention (Mistral): softmax over the W keys ending at each query",
     {P::sliding_window},                 false,    false, false,     false, true, true, false},
}};
// clang-format on

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < kRegistry.size(); ++i)
    if (static_cast<std::size_t>(kRegistry[i].variant) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "row i of the registry must describe AttentionVariant i");
static_assert(kRegistry.back().variant == V::sliding, "one row per AttentionVariant");

constexpr bool parameters_in_id_order() {
  for (std::size_t i = 0; i < kVariantParameters.size(); ++i)
    if (static_cast<std::size_t>(kVariantParameters[i].id) != i) return false;
  return true;
}
static_assert(parameters_in_id_order(), "kVariantParameters[i] must describe VariantParameterId i");

constexpr std::array<AttentionVariant, kRegistry.size()> kVariants = [] {
  std::array<AttentionVariant, kRegistry.size()> out{};
  for (std::size_t i = 0; i < kRegistry.size(); ++i) out[i] = kRegistry[i].variant;
  return out;
}();

}  // namespace

std::string VariantParameter::option() const {
  std::string s(name);
  std::replace(s.begin(), s.end(), '_', '-');
  return s;
}

std::span<const VariantInfo> variant_registry() { return kRegistry; }

const VariantInfo& variant_info(AttentionVariant v) { return kRegistry.at(static_cast<std::size_t>(v)); }

std::string_view name(AttentionVariant v) { return variant_info(v).name; }

std::optional<AttentionVariant> parse_attention_variant(std::string_view text) {
  for (const VariantInfo& row : kRegistry)
    if (row.name == text) return row.variant;
  return std::nullopt;
}

AttentionVariant attention_variant_named(std::string_view text) {
  if (auto v = parse_attention_variant(text)) return *v;
  std::string valid;
  for (const VariantInfo& row : kRegistry) valid += (valid.empty() ? "" : ", ") + std::string(row.name);
  throw Error("unknown attention variant '" + std::string(text) + "' (valid: " + valid + ")");
}

std::span<const AttentionVariant> all_attention_variants() { return kVariants; }

bool is_hashed(AttentionVariant v) { return variant_info(v).hashed; }

}  // namespace ecosim
