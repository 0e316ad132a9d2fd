// The variant registry: one row per AttentionVariant with a unique name, every parameter's default inside its
// range and equal to AttentionConfig's, validate() enforcing exactly the ranges of the parameters each variant
// reads (bounds accepted, one step outside rejected), and the counter's projections following shares_qk.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iterator>
#include <set>

#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/sinks.hpp"

using namespace ecosim;

namespace {

/// A config of `variant` in which every parameter is at its minimum, on a 4096 × 4096 token grid (N = 2^24,
/// so support, sr_ratio and grid_height may reach their maxima), head width 8.
AttentionConfig all_at_minimum(AttentionVariant variant) {
  AttentionConfig c;
  c.variant = variant;
  c.seq = kMaxDimension;
  c.head_dim = 8;
  for (const VariantParameter& p : kVariantParameters) c.parameter(p.id) = p.minimum;
  return c;
}

}  // namespace

TEST_CASE("registry: one row per variant, in enum order, with unique names", "[registry]") {
  const auto rows = variant_registry();
  REQUIRE(rows.size() == static_cast<std::size_t>(AttentionVariant::sliding) + 1);
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const VariantInfo& row = rows[i];
    CHECK(static_cast<std::size_t>(row.variant) == i);
    CHECK(&variant_info(row.variant) == &row);
    CHECK(names.insert(row.name).second);
    CHECK_FALSE(row.description.empty());
    CHECK(name(row.variant) == row.name);
    CHECK(parse_attention_variant(row.name) == row.variant);
    CHECK(attention_variant_named(row.name) == row.variant);
    CHECK(is_hashed(row.variant) == row.hashed);
    CHECK(row.count_only() == !row.has_kernel);
    if (row.hashed) CHECK(row.shares_qk);  // hashing reads one projection as both queries and keys
    CHECK(all_attention_variants()[i] == row.variant);
  }
  CHECK(all_attention_variants().size() == rows.size());
}

TEST_CASE("registry: an unknown variant name is an error listing every valid name", "[registry]") {
  CHECK_FALSE(parse_attention_variant("flash"));
  try {
    attention_variant_named("flash");
    FAIL("no error for an unknown variant");
  } catch (const Error& e) {
    const std::string message = e.what();
    CHECK_THAT(message, Catch::Contains("'flash'"));
    for (const VariantInfo& row : variant_registry()) CHECK_THAT(message, Catch::Contains(std::string(row.name)));
  }
}

TEST_CASE("registry: parameters have unique names, defaults inside their ranges, equal to AttentionConfig's",
          "[registry]") {
  const AttentionConfig defaults;
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < kVariantParameters.size(); ++i) {
    const VariantParameter& p = kVariantParameters[i];
    INFO(p.name);
    CHECK(static_cast<std::size_t>(p.id) == i);
    CHECK(names.insert(p.name).second);
    CHECK(p.minimum <= p.default_value);
    CHECK(p.default_value <= p.maximum);
    CHECK(defaults.parameter(p.id) == p.default_value);
    CHECK(p.option().find('_') == std::string::npos);
    CHECK_FALSE(p.help.empty());
  }
}

TEST_CASE("registry: each parameter maps to the AttentionConfig field of its name", "[registry]") {
  const std::pair<std::string_view, std::uint64_t AttentionConfig::*> fields[] = {
      {"bits", &AttentionConfig::bits},
      {"support", &AttentionConfig::support},
      {"features", &AttentionConfig::features},
      {"proj_k", &AttentionConfig::proj_k},
      {"hashes", &AttentionConfig::hashes},
      {"chunk", &AttentionConfig::chunk},
      {"chunks_before", &AttentionConfig::chunks_before},
      {"sr_ratio", &AttentionConfig::sr_ratio},
      {"grid_height", &AttentionConfig::grid_height},
      {"window", &AttentionConfig::window},
      {"sliding_window", &AttentionConfig::sliding_window}};
  REQUIRE(std::size(fields) == kVariantParameters.size());
  for (const auto& [field_name, field] : fields) {
    const auto it = std::find_if(kVariantParameters.begin(), kVariantParameters.end(),
                                 [&](const VariantParameter& p) { return p.name == field_name; });
    REQUIRE(it != kVariantParameters.end());
    AttentionConfig c;
    c.parameter(it->id) = 4242;
    CHECK(c.*field == 4242);
  }
}

TEST_CASE("validate accepts each parameter's bounds and rejects one step outside, for every variant reading it",
          "[registry]") {
  for (const VariantInfo& row : variant_registry()) {
    REQUIRE_NOTHROW(all_at_minimum(row.variant).validate());
    for (const VariantParameter& p : kVariantParameters) {
      if (!row.parameters.contains(p.id)) continue;
      INFO(row.name << " " << p.name);
      AttentionConfig c = all_at_minimum(row.variant);
      c.parameter(p.id) = p.maximum;
      CHECK_NOTHROW(c.validate());
      c.parameter(p.id) = p.maximum + 1;
      CHECK_THROWS_WITH(c.validate(), Catch::Contains(std::string(p.name)) && Catch::Contains("outside"));
      if (p.minimum > 0) {
        c.parameter(p.id) = p.minimum - 1;
        CHECK_THROWS_WITH(c.validate(), Catch::Contains(std::string(p.name)) && Catch::Contains("outside"));
      }
    }
  }
}

TEST_CASE("validate ignores the parameters a variant does not read", "[registry]") {
  for (const VariantInfo& row : variant_registry())
    for (const VariantParameter& p : kVariantParameters) {
      if (row.parameters.contains(p.id)) continue;
      INFO(row.name << " " << p.name);
      AttentionConfig c = all_at_minimum(row.variant);
      c.parameter(p.id) = p.maximum + 1;
      CHECK_NOTHROW(c.validate());
    }
}

TEST_CASE("the counter projects q and k with one Linear exactly for the variants sharing them", "[registry]") {
  for (const VariantInfo& row : variant_registry()) {
    if (row.variant == AttentionVariant::sra) continue;  // its own projections: q, reduced kv
    INFO(row.name);
    AttentionConfig c;
    c.variant = row.variant;
    c.seq = 64;
    c.support = 8;
    RecordingSink sink;
    emit_attention("a", c, Convention::exact, sink);
    std::set<std::string> names;
    for (const OpRecord& r : sink.records) names.insert(r.name);
    CHECK(names.count("a.qk") == (row.shares_qk ? 1u : 0u));
    CHECK(names.count("a.v") == (row.shares_qk ? 1u : 0u));
    CHECK(names.count("a.qkv") == (row.shares_qk ? 0u : 1u));
  }
}
