// fp16 inputs: IEEE half conversion (hand-computed bit patterns, round to nearest even, exact round trip of
// every finite half), MSA on fp16 inputs equal to MSA on the rounded values, its counts, range errors, GPU.
#include <catch2/catch.hpp>

#include "../gpu_or_skip.hpp"
#include "baseline_test_support.hpp"
#include "ecosim/ecoformer/msa_fp16.hpp"
#include "ecosim/ecoformer/reference.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::test;
using Catch::Matchers::Contains;

TEST_CASE("fp16 conversion rounds to nearest even", "[fp16]") {
  CHECK(to_half_bits(1.0f) == 0x3c00);
  CHECK(to_half_bits(-2.0f) == 0xc000);
  CHECK(to_half_bits(65504.0f) == 0x7bff);               // largest finite half
  CHECK(to_half_bits(65519.0f) == 0x7bff);               // below the rounding midpoint
  CHECK(to_half_bits(65520.0f) == 0x7c00);               // midpoint rounds to even: overflow to ∞
  CHECK(to_half_bits(1.0f / 3.0f) == 0x3555);            // 0.333251953125
  CHECK(to_half_bits(1.0f + 1.0f / 2048.0f) == 0x3c00);  // tie between 1 and 1+2^−10 → even (1)
  CHECK(to_half_bits(1.0f + 3.0f / 2048.0f) == 0x3c02);  // tie → even mantissa 2
  CHECK(to_half_bits(std::ldexp(1.0f, -24)) == 0x0001);  // smallest subnormal
  CHECK(to_half_bits(std::ldexp(1.0f, -25)) == 0x0000);  // tie → even (zero)
  CHECK(to_half_bits(std::ldexp(3.0f, -25)) == 0x0002);  // tie → even
  CHECK(to_half_bits(std::ldexp(1023.0f, -24) + std::ldexp(1.0f, -25) * 1.5f) == 0x0400);  // rounds up to normal
  for (std::uint32_t h = 0; h < 0x10000; ++h)
    if ((h & 0x7c00u) != 0x7c00u) REQUIRE(to_half_bits(from_half_bits(static_cast<std::uint16_t>(h))) == h);
}

TEST_CASE("MSA on fp16 inputs equals MSA on the rounded values, with the same operations", "[fp16]") {
  const AttentionConfig c = baseline_config(AttentionVariant::msa, 2, 2, 41, 32);
  AttentionInputs in = synthetic_inputs(c, 3);
  OpCounter fp16_counts, fp32_counts;
  const RunResult half = run_msa_fp16(in, c, Device::cpu, fp16_counts);
  for (Tensor* t : {&in.q, &in.k, &in.v})
    for (float& x : t->data) x = from_half_bits(to_half_bits(x));
  run_attention(in, c, Device::cpu, 1, fp32_counts);
  CHECK(max_relative_error(half.out.data, naive_softmax_attention(in.q, in.k, in.v).data) < 1e-6);
  for (OpKind k : kAllOpKinds) CHECK(fp16_counts.total().ops(k) == fp32_counts.total().ops(k));
  CHECK(fp16_counts.total().read_bytes(DType::fp16) > 0);
  CHECK(fp16_counts.total().read_bytes() < fp32_counts.total().read_bytes());
}

TEST_CASE("fp16 inputs outside the half range and other variants are rejected", "[fp16]") {
  AttentionConfig c = baseline_config(AttentionVariant::msa, 1, 1, 5, 4);
  AttentionInputs in = synthetic_inputs(c, 3);
  in.k.data[3] = 70000.0f;
  OpCounter sink;
  CHECK_THROWS_WITH(run_msa_fp16(in, c, Device::cpu, sink), Contains("outside the fp16 range"));
  c.variant = AttentionVariant::performer;
  CHECK_THROWS_WITH(run_msa_fp16(synthetic_inputs(c, 3), c, Device::cpu, sink), Contains("msa only"));
}

TEST_CASE("fp16 MSA on the GPU matches the CPU reference", "[fp16][gpu]") {
  if (!gpu_or_skip()) return;
  const AttentionConfig c = baseline_config(AttentionVariant::msa, 1, 3, 777, 64);
  const AttentionInputs in = synthetic_inputs(c, 3);
  OpCounter cpu_counts, gpu_counts;
  const RunResult cpu = run_msa_fp16(in, c, Device::cpu, cpu_counts);
  const RunResult gpu_run = run_msa_fp16(in, c, Device::cuda, gpu_counts);
  CHECK(max_relative_error(gpu_run.out.data, cpu.out.data) < 1e-5);
  CHECK(gpu_counts.total() == cpu_counts.total());
}
