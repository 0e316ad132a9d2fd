// The kernels' parameter arrays: draw_kernel_parameters gives arrays of kernel_parameter_specs' names and
// shapes; run_attention with them equals run_attention with the seed, bit for bit, for every variant with a
// kernel (so a saved set reproduces the run); other arrays give another output; a missing, extra, mis-sized or
// non-finite array is an error naming it.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "ecosim/ecoformer/kernel_parameters.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/variant_registry.hpp"

using namespace ecosim;
using namespace ecosim::ecoformer;
using Catch::Matchers::Contains;

namespace {

AttentionConfig config_of(AttentionVariant variant) {
  AttentionConfig c;
  c.variant = variant;
  c.batch = 2, c.heads = 2, c.seq = 37, c.head_dim = 16;
  c.projections = false;
  c.support = 9, c.bits = 8, c.features = 24, c.proj_k = 11, c.chunk = 8;
  return c;
}

std::uint64_t elements(const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = 1;
  for (std::uint64_t extent : shape) n *= extent;
  return n;
}

}  // namespace

TEST_CASE("run_attention with the drawn parameters equals run_attention with the seed", "[kernel_parameters]") {
  for (const VariantInfo& row : variant_registry()) {
    if (!row.has_kernel) continue;
    const AttentionConfig c = config_of(row.variant);
    INFO(row.name);
    const AttentionInputs in = synthetic_inputs(c, 4);
    const KernelParameters drawn = draw_kernel_parameters(in, c, 4);
    const std::vector<ParameterSpec> specs = kernel_parameter_specs(c);
    REQUIRE(drawn.size() == specs.size());
    for (const ParameterSpec& s : specs) {
      REQUIRE(drawn.count(s.name) == 1);
      CHECK(drawn.at(s.name).size() == elements(s.shape));
    }
    OpCounter seeded_ops, given_ops;
    const Tensor seeded = run_attention(in, c, Device::cpu, 4, seeded_ops).out;
    const Tensor given = run_attention(in, c, Device::cpu, drawn, given_ops).out;
    CHECK(given.data == seeded.data);
    CHECK(given_ops.total() == seeded_ops.total());
    if (specs.empty()) continue;
    KernelParameters other = drawn;  // another seed's parameters: another output
    for (auto& [name, values] : other) values = draw_kernel_parameters(in, c, 5).at(name);
    CHECK(run_attention(in, c, Device::cpu, other, given_ops).out.data != seeded.data);
  }
}

TEST_CASE("the parameter arrays of each variant", "[kernel_parameters]") {
  const auto shape_of = [](AttentionVariant v, const std::string& name) {
    for (const ParameterSpec& s : kernel_parameter_specs(config_of(v)))
      if (s.name == name) return s.shape;
    return std::vector<std::uint64_t>{};
  };
  using Shape = std::vector<std::uint64_t>;
  CHECK(kernel_parameter_specs(config_of(AttentionVariant::msa)).empty());
  CHECK(kernel_parameter_specs(config_of(AttentionVariant::bi_ecoformer)).empty());
  CHECK(shape_of(AttentionVariant::performer, "omega") == Shape{24, 16});              // F × D
  CHECK(shape_of(AttentionVariant::linformer, "length_projection") == Shape{11, 37});  // k × N
  CHECK(shape_of(AttentionVariant::ecoformer, "anchors") == Shape{2, 9, 16});          // H × m × D
  CHECK(shape_of(AttentionVariant::ecoformer, "projection") == Shape{2, 8, 9});        // H × b × m
  CHECK(shape_of(AttentionVariant::lsh_ecoformer, "projection") == Shape{2, 8, 16});   // H × b × D
}

TEST_CASE("a wrong parameter set is an error naming the array", "[kernel_parameters]") {
  const AttentionConfig c = config_of(AttentionVariant::performer);
  const AttentionInputs in = synthetic_inputs(c, 1);
  const KernelParameters good = draw_kernel_parameters(in, c, 1);
  OpCounter ops;
  KernelParameters p;
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, p, ops), Contains("performer needs the parameter 'omega'"));
  p = good;
  p["anchors"] = {1.0f};
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, p, ops),
                    Contains("parameter 'anchors' is not read by performer"));
  p = good;
  p["omega"].pop_back();
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, p, ops),
                    Contains("parameter 'omega' holds 383 values, its shape needs 384"));
  p = good;
  p["omega"][5] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, p, ops),
                    Contains("parameter 'omega' holds a non-finite value at flat index 5"));
}
