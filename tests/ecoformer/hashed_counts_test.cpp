// The hashed kernels' instrumented records equal the op counter's analytic exact-convention records,
// record by record (names, shapes, operations and bytes by data type), for all five variants.
#include <catch2/catch.hpp>

#include "../gpu_or_skip.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "hashed_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {

struct Shape {
  std::uint64_t batch, heads, seq, dim, bits, support;
};

// Odd N, N < b, H > 1, D ∈ {16, 32, 64}, and the degenerate single token with a single anchor.
constexpr Shape kShapes[] = {{1, 1, 33, 16, 16, 25}, {2, 3, 17, 32, 8, 5},   {1, 2, 10, 64, 32, 10},
                             {3, 1, 7, 16, 64, 7},   {1, 4, 65, 32, 16, 25}, {1, 1, 1, 16, 16, 1}};

void check_counts(AttentionVariant v, const Shape& s, Device device, bool causal = false) {
  AttentionConfig c = hashed_config(v, s.batch, s.heads, s.seq, s.dim, s.bits, s.support);
  c.causal = causal;
  RecordingSink instrumented, analytic;
  run_hashed(synthetic_inputs(c, 4), c, device, 4, instrumented);
  emit_attention(kAttentionRecordPrefix, c, Convention::exact, analytic);
  INFO("variant " << name(v) << ", B=" << s.batch << " H=" << s.heads << " N=" << s.seq << " D=" << s.dim
                  << " b=" << s.bits << " m=" << s.support);
  REQUIRE(instrumented.records.size() == analytic.records.size());
  OpCounter from_kernel, from_formula;
  for (std::size_t i = 0; i < analytic.records.size(); ++i) {
    INFO("record " << analytic.records[i].name);
    CHECK(instrumented.records[i] == analytic.records[i]);
    from_kernel.record(instrumented.records[i]);
    from_formula.record(analytic.records[i]);
  }
  for (OpKind k : kAllOpKinds) CHECK(from_kernel.total().ops(k) == from_formula.total().ops(k));
}

}  // namespace

TEST_CASE("instrumented counts equal the analytic exact counts (CPU)", "[hashed][counts]") {
  for (AttentionVariant v : kHashedVariants)
    for (const Shape& s : kShapes) check_counts(v, s, Device::cpu);
}

TEST_CASE("causal: instrumented counts equal the analytic exact counts of the prefix-sum form (CPU)",
          "[hashed][counts]") {
  for (AttentionVariant v : kHashedVariants)
    for (const Shape& s : kShapes) check_counts(v, s, Device::cpu, true);
}

TEST_CASE("instrumented counts equal the analytic exact counts (GPU)", "[hashed][counts][gpu]") {
  if (!gpu_or_skip()) return;
  for (AttentionVariant v : kHashedVariants)
    for (const Shape& s : kShapes) check_counts(v, s, Device::cuda);
}
