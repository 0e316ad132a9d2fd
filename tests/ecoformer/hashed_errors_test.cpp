// Bad input to hashed attention: each case raises ecosim::Error with a message, never a crash or NaN output.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "ecosim/kernels/gpu.hpp"
#include "hashed_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {
void run_cpu(const AttentionInputs& in, const AttentionConfig& c) {
  RecordingSink sink;
  run_hashed(in, c, Device::cpu, 1, sink);
}
}  // namespace

TEST_CASE("NaN or infinite inputs are reported, not propagated", "[hashed][errors]") {
  const AttentionConfig c = hashed_config(AttentionVariant::ecoformer, 1, 2, 20, 16, 8, 5);
  AttentionInputs in = synthetic_inputs(c, 1);
  in.q.data[17] = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(run_cpu(in, c), Catch::Contains("non-finite") && Catch::Contains("q"));
  in = synthetic_inputs(c, 1);
  in.v.data[3] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(run_cpu(in, c), Catch::Contains("non-finite") && Catch::Contains("v"));
}

TEST_CASE("bits outside 1..64, support above seq, empty and mismatched tensors are errors", "[hashed][errors]") {
  const AttentionConfig good = hashed_config(AttentionVariant::klsh_ecoformer, 1, 1, 20, 16, 8, 5);
  const AttentionInputs in = synthetic_inputs(good, 1);
  REQUIRE_NOTHROW(run_cpu(in, good));
  for (std::uint64_t bits : {0u, 65u}) {
    AttentionConfig c = good;
    c.bits = bits;
    CHECK_THROWS_WITH(run_cpu(in, c), Catch::Contains("bits"));
  }
  AttentionConfig wide_bi = hashed_config(AttentionVariant::bi_ecoformer, 1, 1, 20, 65);
  CHECK_THROWS_AS(run_cpu(synthetic_inputs(hashed_config(AttentionVariant::klsh_ecoformer, 1, 1, 20, 65), 1), wide_bi),
                  Error);
  AttentionConfig many_anchors = good;
  many_anchors.support = 21;
  CHECK_THROWS_WITH(run_cpu(in, many_anchors), Catch::Contains("support"));

  AttentionInputs empty = in;
  empty.q.data.clear();
  CHECK_THROWS_WITH(run_cpu(empty, good), Catch::Contains("values"));
  AttentionConfig zero_seq = good;
  zero_seq.seq = 0;
  CHECK_THROWS_AS(run_cpu(in, zero_seq), Error);

  AttentionInputs short_v = in;
  short_v.v.seq = 19;
  CHECK_THROWS_WITH(run_cpu(short_v, good), Catch::Contains("input v"));
  AttentionInputs other_k = in;
  other_k.k.dim = 32;
  CHECK_THROWS_WITH(run_cpu(other_k, good), Catch::Contains("input k"));
  AttentionInputs no_k = in;
  no_k.k = {};
  CHECK_NOTHROW(run_cpu(no_k, good));  // the hashed family does not read k
}

TEST_CASE("non-hashed variants and bad code widths are rejected", "[hashed][errors]") {
  AttentionConfig msa = hashed_config(AttentionVariant::msa, 1, 1, 20, 16);
  CHECK_THROWS_WITH(run_cpu(synthetic_inputs(msa, 1), msa), Catch::Contains("not a hashed"));
  CHECK_THROWS_AS(PackedCodes(4, 0), Error);
  CHECK_THROWS_AS(PackedCodes(4, 65), Error);
  PackedCodes codes(4, 5);
  CHECK_THROWS_AS(codes.set_word(0, 0x20), Error);  // bit 5 is above b = 5
}

TEST_CASE("cuda without a usable GPU is an error, not a silent CPU run", "[hashed][errors]") {
  if (gpu::probe().available) {
    WARN("SKIPPED: a GPU is present; this case checks the no-GPU path");
    return;
  }
  const AttentionConfig c = hashed_config(AttentionVariant::klsh_ecoformer, 1, 1, 20, 16, 8, 5);
  RecordingSink sink;
  CHECK_THROWS_WITH(run_hashed(synthetic_inputs(c, 1), c, Device::cuda, 1, sink), Catch::Contains("GPU"));
}
