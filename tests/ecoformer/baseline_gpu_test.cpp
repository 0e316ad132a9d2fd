// GPU kernels of the baselines against their CPU references (same host-drawn random parameters), with the
// same instrumented counts; skipped visibly when no GPU is present.
#include <catch2/catch.hpp>

#include "../gpu_or_skip.hpp"
#include "baseline_test_support.hpp"
#include "ecosim/ecoformer/reference.hpp"

using namespace ecosim;
using namespace ecosim::test;

TEST_CASE("baseline GPU kernels match their CPU references", "[baselines][gpu]") {
  if (!gpu_or_skip()) return;
  for (AttentionVariant v :
       {AttentionVariant::msa, AttentionVariant::linformer, AttentionVariant::performer, AttentionVariant::reformer})
    for (auto [b, h, n, d] : {std::array<std::uint64_t, 4>{1, 1, 7, 16},
                              {2, 3, 333, 32},
                              {1, 2, 1000, 64},
                              {1, 1, 70, 128},
                              {1, 2, 3137, 32}}) {  // the last: N just above the comparison's 3,136, odd
      AttentionConfig c = baseline_config(v, b, h, n, d);
      c.chunk = 64;
      INFO(std::string(name(v)) << " B" << b << " H" << h << " N" << n << " D" << d);
      const AttentionInputs in = synthetic_inputs(c, 2);
      OpCounter cpu_counts, gpu_counts;
      const RunResult cpu = run_attention(in, c, Device::cpu, 4, cpu_counts);
      const RunResult gpu_run = run_attention(in, c, Device::cuda, 4, gpu_counts);
      CHECK(gpu_run.device == Device::cuda);
      CHECK(max_relative_error(gpu_run.out.data, cpu.out.data) < (v == AttentionVariant::msa ? 1e-5 : 1e-4));
      CHECK(gpu_counts.total() == cpu_counts.total());
    }
}

namespace {
/// Causal MSA or Performer at N tokens, head width d, on the GPU against the causal CPU reference.
void check_causal(AttentionVariant v, std::uint64_t n, std::uint64_t d) {
  AttentionConfig c = baseline_config(v, 2, 2, n, d);
  c.causal = true;
  INFO("causal " << name(v) << " N" << n << " D" << d);
  const AttentionInputs in = synthetic_inputs(c, 2);
  OpCounter cpu_counts, gpu_counts;
  const RunResult cpu = run_attention(in, c, Device::cpu, 4, cpu_counts);
  const RunResult gpu_run = run_attention(in, c, Device::cuda, 4, gpu_counts);
  const double tolerance = v == AttentionVariant::msa ? 1e-5 : 1e-4;  // as the non-causal comparison
  CHECK(gpu_run.device == Device::cuda);
  CHECK(max_relative_error(gpu_run.out.data, cpu.out.data) < tolerance);
  CHECK(gpu_counts.total() == cpu_counts.total());
  // the first query row of a prefill sees key 0 alone: its output is v's first row
  for (std::uint64_t col = 0; col < d; ++col)
    CHECK(gpu_run.out.data[col] == Approx(in.v.data[col]).epsilon(tolerance / 10));
}
}  // namespace

TEST_CASE("causal MSA and Performer on the GPU match their causal CPU references", "[baselines][gpu]") {
  if (!gpu_or_skip()) return;
  // N around the 64-token chunks of causal Performer's CUDA form (within one chunk, at its edges, over many) and
  // MSA's 64-row blocks
  for (AttentionVariant v : {AttentionVariant::msa, AttentionVariant::performer})
    for (auto [n, d] : {std::array<std::uint64_t, 2>{1, 16}, {7, 32}, {64, 64}, {65, 32}, {333, 128}})
      check_causal(v, n, d);
}

// [large]: too slow for the sanitizers (racecheck walks Performer's 50 chunks of prefix sums for minutes), so
// gpu-check runs it in the gpu tests only.
TEST_CASE("causal MSA and Performer on the GPU match their causal CPU references at N = 3,137",
          "[baselines][gpu][large]") {
  if (!gpu_or_skip()) return;
  for (AttentionVariant v : {AttentionVariant::msa, AttentionVariant::performer}) check_causal(v, 3137, 32);
}
