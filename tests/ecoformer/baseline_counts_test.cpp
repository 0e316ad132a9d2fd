// Instrumented op counts equal the op counter's analytic exact counts, for every variant with a kernel and a
// grid of shapes, per record name (both come from ops_counter's stage emitters; stage_order_test.cpp checks
// that each kernel reports each stage once, in order).
#include <catch2/catch.hpp>
#include <iterator>
#include <map>

#include "baseline_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {
struct NamedCounts : OpSink {
  std::map<std::string, OpCounts> by_name;
  void record(const OpRecord& op) override { by_name[op.name] += op.counts; }
};
}  // namespace

TEST_CASE("instrumented counts equal the analytic exact counts for every variant", "[baselines][counts]") {
  std::vector<AttentionVariant> variants;
  std::copy_if(all_attention_variants().begin(), all_attention_variants().end(), std::back_inserter(variants),
               has_kernel);
  for (AttentionVariant v : variants)
    for (auto [b, h, n, d] : {std::array<std::uint64_t, 4>{1, 1, 7, 16}, {2, 3, 33, 32}, {1, 2, 130, 64}}) {
      AttentionConfig c = baseline_config(v, b, h, n, d);
      c.support = std::min<std::uint64_t>(c.support, n);
      c.chunk = 32;
      c.features = 48;
      c.proj_k = 20;
      INFO(std::string(name(v)) << " B" << b << " H" << h << " N" << n << " D" << d);
      NamedCounts instrumented, analytic;
      run_attention(synthetic_inputs(c, 1), c, Device::cpu, 1, instrumented);
      emit_attention("attention", c, Convention::exact, analytic);
      CHECK(instrumented.by_name == analytic.by_name);
    }
}

TEST_CASE("Reformer counts follow the chunk plan with wrap-around and a short last chunk", "[baselines][counts]") {
  for (std::uint64_t before : {0, 1, 2, 7}) {
    AttentionConfig c = baseline_config(AttentionVariant::reformer, 1, 2, 100, 16);
    c.chunk = 30;  // chunks of 30, 30, 30, 10
    c.chunks_before = before;
    INFO("chunks before " << before);
    OpCounter instrumented, analytic;
    run_attention(synthetic_inputs(c, 1), c, Device::cpu, 1, instrumented);
    emit_attention("attention", c, Convention::exact, analytic);
    CHECK(instrumented.total() == analytic.total());
  }
}
