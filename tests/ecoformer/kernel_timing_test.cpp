// Fair kernel timing on the CPU (time_attention: warm-up + repetitions by the steady clock, op records of
// timed runs kept out of the caller's sink) and the byte formula of bench_attention's bandwidth bound.
#include <catch2/catch.hpp>

#include "copy_time.hpp"
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/sinks.hpp"

using namespace ecosim;

TEST_CASE("bench_attention's bound copies the traffic of reading Q, K, V and writing O", "[bench]") {
  // B = 1, H = 16, N = 1024, D = 32: 524,288 fp32 values per tensor, 2 MiB each.
  const std::uint64_t elements = 16 * 1024 * 32;
  CHECK(bench::bound_copy_bytes(elements) == 4'194'304);  // half of Q, K, V and O's 8 MiB
  // a copy reads and writes its bytes: the same traffic as three tensors read and one written
  CHECK(2 * bench::bound_copy_bytes(elements) == 4 * elements * sizeof(float));
  // MSA on fp16 inputs reads 2-byte Q, K, V and writes 4-byte O: 10 bytes of traffic per element, a copy of 5
  CHECK(bench::bound_copy_bytes(elements, 2, 4) == 5 * elements);
}

TEST_CASE("time_attention on the CPU: warm-up, repetitions, the steady clock", "[timing]") {
  AttentionConfig c;
  c.variant = AttentionVariant::msa;
  c.batch = 1, c.heads = 2, c.seq = 16, c.head_dim = 8, c.projections = false;
  const ecoformer::AttentionInputs in = ecoformer::synthetic_inputs(c, 3);
  const timing::Stats s = ecoformer::time_attention(in, c, ecoformer::Device::cpu, 3, {2, 5});
  CHECK(s.method == timing::kSteadyClock);
  CHECK(s.warmup == 2);
  CHECK(s.repetitions == 5);
  CHECK(s.min_ms >= 0);
  CHECK(s.min_ms <= s.q1_ms);
  CHECK(s.q1_ms <= s.median_ms);
  CHECK(s.median_ms <= s.q3_ms);
  CHECK(s.q3_ms <= s.max_ms);
  CHECK_THROWS_AS(ecoformer::time_attention(in, c, ecoformer::Device::cpu, 3, {0, 0}), Error);
}

TEST_CASE("time_runs: warm-up and measured runs, each run's latency a sample, another device refused", "[timing]") {
  int runs = 0;
  const timing::Stats s = ecoformer::time_runs({1, 3}, ecoformer::Device::cpu, [&](OpSink& sink) {
    ++runs;
    sink.record(OpRecord{});  // a timed run's records go to a sink that drops them
    return ecoformer::RunResult{{}, 1.5, ecoformer::Device::cpu};
  });
  CHECK(runs == 4);
  CHECK(s.median_ms == 1.5);
  CHECK_THROWS_AS(ecoformer::time_runs({0, 1}, ecoformer::Device::cuda,
                                       [](OpSink&) {
                                         return ecoformer::RunResult{{}, 1.0, ecoformer::Device::cpu};
                                       }),
                  Error);
}
