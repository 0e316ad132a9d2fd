// Bad input to run_attention is an ecosim::Error with a message naming the problem: mismatched or empty
// tensors, NaN/Inf values, parameters out of range, and the CUDA device when no GPU is present.
#include <catch2/catch.hpp>
#include <limits>

#include "baseline_test_support.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::test;
using Catch::Matchers::Contains;

TEST_CASE("mismatched, empty and non-finite inputs are rejected", "[baselines][errors]") {
  const AttentionConfig c = baseline_config(AttentionVariant::msa, 1, 2, 9, 8);
  OpCounter sink;
  AttentionInputs in = synthetic_inputs(c, 1);
  in.k.seq = 8;
  in.k.data.resize(2 * 8 * 8);
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, 1, sink), Contains("K has shape [1, 2, 8, 8]"));

  in = synthetic_inputs(c, 1);
  in.v.data.pop_back();
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, 1, sink), Contains("V holds 143 values"));

  in = synthetic_inputs(c, 1);
  in.q = Tensor{};
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, 1, sink), Contains("Q is empty"));

  for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    in = synthetic_inputs(c, 1);
    in.v.data[17] = bad;
    CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, 1, sink), Contains("non-finite") && Contains("index 17"));
  }
  CHECK(sink.records() == 0);  // nothing was reported for the rejected runs
}

TEST_CASE("parameters out of range are rejected", "[baselines][errors]") {
  AttentionConfig c = baseline_config(AttentionVariant::performer, 1, 1, 9, 8);
  const AttentionInputs in = synthetic_inputs(c, 1);
  OpCounter sink;
  c.features = 0;
  CHECK_THROWS_AS(run_attention(in, c, Device::cpu, 1, sink), Error);
  c = baseline_config(AttentionVariant::reformer, 1, 1, 9, 8);
  c.hashes = 65;
  CHECK_THROWS_AS(run_attention(in, c, Device::cpu, 1, sink), Error);
  c = baseline_config(AttentionVariant::ecoformer, 1, 1, 9, 8);  // m = 25 support samples > N = 9
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, 1, sink), Contains("support"));
  c.support = 5;
  c.bits = 65;
  CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, 1, sink), Contains("bits"));
}

TEST_CASE("Device::cuda without a GPU is an error naming the reason", "[baselines][errors]") {
  const gpu::Availability gpu = gpu::probe();
  if (gpu.available) {
    WARN("SKIPPED: a GPU is present (" + gpu.device_name + "); this test covers machines without one");
    return;
  }
  const AttentionConfig c = baseline_config(AttentionVariant::msa, 1, 1, 9, 8);
  OpCounter sink;
  CHECK_THROWS_WITH(run_attention(synthetic_inputs(c, 1), c, Device::cuda, 1, sink), Contains(gpu.reason));
}

TEST_CASE("a config the kernels cannot run is refused with the reason, not run at wrong sizes", "[baselines][errors]") {
  AttentionConfig c = baseline_config(AttentionVariant::msa, 1, 2, 1, 8);
  const AttentionInputs in = synthetic_inputs(c, 1);
  OpCounter sink;
  c.keys = 64;  // a decode step: 1 query over 64 keys
  CHECK(kernel_limitation(c) == "the kernels need as many keys as queries (here 64 keys for 1 queries)");
  for (AttentionVariant v : {AttentionVariant::msa, AttentionVariant::performer, AttentionVariant::linformer}) {
    c.variant = v;
    CHECK_THROWS_WITH(run_attention(in, c, Device::cpu, 1, sink), Contains("need as many keys as queries"));
  }
  c = baseline_config(AttentionVariant::msa, 1, 2, 9, 8);
  c.causal = true;  // causal: the kernels of msa and performer (and the EcoFormer family), CPU and CUDA alike
  CHECK(kernel_limitation(c).empty());
  c.variant = AttentionVariant::performer;
  CHECK(kernel_limitation(c).empty());
  c.variant = AttentionVariant::reformer;
  CHECK_THAT(kernel_limitation(c), Contains("causal attention for msa, performer and the EcoFormer family only"));
  CHECK_THROWS_WITH(run_attention(synthetic_inputs(c, 1), c, Device::cpu, 1, sink),
                    Contains("causal attention for msa, performer and the EcoFormer family only"));
  CHECK(sink.records() == 0);
  c.variant = AttentionVariant::msa;
  c.causal = false;
  CHECK(kernel_limitation(c).empty());
}
