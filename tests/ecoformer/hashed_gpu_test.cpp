// GPU against the CPU reference for every hashed variant: codes bit for bit except documented ties (a bit
// whose CPU projection lies within kTie of 0, where fp32 rounding may go either way), fp-ecoformer codes and
// all outputs within tolerance. Skips visibly without a GPU.
#include <catch2/catch.hpp>
#include <cmath>
#include <iostream>

#include "../gpu_or_skip.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "hashed_test_support.hpp"

using namespace ecosim;
using namespace ecosim::test;

namespace {
constexpr double kTie = 1e-5;  // |projection| below this may round to either sign on CPU and GPU

/// Every bit where the GPU's code differs from the CPU's is a tie; returns how many there are.
std::uint64_t tied_bits(const HashedRun& cpu, const HashedRun& cuda, std::uint64_t tokens) {
  const auto bits = static_cast<unsigned>(cpu.params.bits);
  std::uint64_t ties = 0;
  for (std::uint64_t i = 0; i < tokens; ++i)
    for (unsigned r = 0; r < bits; ++r)
      if (cpu.hashes.codes.sign(i, r) != cuda.hashes.codes.sign(i, r)) {
        ++ties;
        REQUIRE(std::fabs(cpu.hashes.projections[i * bits + r]) < kTie);
      }
  return ties;
}
}  // namespace

TEST_CASE("GPU hashed attention agrees with the CPU reference", "[hashed][gpu]") {
  if (!gpu_or_skip()) return;
  struct Shape {
    std::uint64_t batch, heads, seq, dim, bits, support;
  };
  // {1, 2, 2051, …}: 9 chunks of 256 tokens per group, the last one partial (3 tokens); support 1030: more
  // anchors than the 256 threads of a block (the column sums take 5 passes of anchors, the last of 6)
  const Shape shapes[] = {{2, 3, 301, 32, 16, 25},
                          {1, 2, 9, 64, 64, 9},
                          {2, 1, 1000, 16, 24, 25},
                          {1, 2, 2051, 16, 16, 25},
                          {1, 1, 1100, 8, 16, 1030}};
  for (AttentionVariant v : kHashedVariants)
    for (const Shape& s : shapes) {
      const AttentionConfig c = hashed_config(v, s.batch, s.heads, s.seq, s.dim, s.bits, s.support);
      INFO("variant " << name(v) << ", N=" << s.seq << " D=" << s.dim << " b=" << c.code_bits());
      const AttentionInputs in = synthetic_inputs(c, 9);
      RecordingSink sink;
      const HashedRun cpu = run_hashed_detailed(in, c, Device::cpu, 9, sink);
      const HashedRun cuda = run_hashed_detailed(in, c, Device::cuda, 9, sink);
      const std::uint64_t tokens = c.batch * c.heads * c.seq;
      if (cpu.params.binary()) {
        const std::uint64_t ties = tied_bits(cpu, cuda, tokens);
        std::cout << name(v) << " N=" << s.seq << ": " << ties << " tied bits of " << tokens * cpu.params.bits << "\n";
        bool positive = false;  // the GPU output is the hashed attention of the GPU's own codes
        CHECK(relative_error(cuda.result.out.data, naive_hashed(cuda, in.v, &positive)) <= 1e-5);
        if (ties == 0) CHECK(relative_error(cuda.result.out.data, naive_hashed(cpu, in.v, &positive)) <= 1e-5);
      } else {
        for (std::uint64_t e = 0; e < cpu.hashes.projections.size(); ++e)
          REQUIRE(cuda.hashes.projections[e] == Approx(cpu.hashes.projections[e]).margin(1e-6));
        bool positive = false;
        CHECK(relative_error(cuda.result.out.data, naive_hashed(cpu, in.v, &positive)) <= 1e-4);
      }
      CHECK(cuda.result.device == Device::cuda);
      CHECK(cuda.result.latency_ms > 0);
    }
}

TEST_CASE("causal GPU hashed attention agrees with the causal CPU reference", "[hashed][gpu]") {
  if (!gpu_or_skip()) return;
  struct Shape {
    std::uint64_t batch, heads, seq, dim, bits, support;
  };
  // around the 64-token chunks of the causal CUDA form: one token, within one chunk, at its edges, over many
  const Shape shapes[] = {{1, 1, 1, 16, 8, 1}, {2, 3, 63, 32, 16, 25}, {1, 2, 65, 64, 64, 9}, {2, 1, 1000, 16, 24, 25}};
  for (AttentionVariant v : kHashedVariants)
    for (const Shape& s : shapes) {
      AttentionConfig c = hashed_config(v, s.batch, s.heads, s.seq, s.dim, s.bits, s.support);
      c.causal = true;
      INFO("causal variant " << name(v) << ", N=" << s.seq << " D=" << s.dim << " b=" << c.code_bits());
      const AttentionInputs in = synthetic_inputs(c, 9);
      OpCounter cpu_counts, gpu_counts;
      const HashedRun cpu = run_hashed_detailed(in, c, Device::cpu, 9, cpu_counts);
      const HashedRun cuda = run_hashed_detailed(in, c, Device::cuda, 9, gpu_counts);
      CHECK(gpu_counts.total() == cpu_counts.total());
      const std::uint64_t tokens = c.batch * c.heads * c.seq;
      bool positive = false;  // the GPU output is the causal hashed attention of the GPU's own codes
      const double tolerance = cpu.params.binary() ? 1e-5 : 1e-4;  // real codes' sums may cancel (as non-causal)
      CHECK(relative_error(cuda.result.out.data, naive_hashed(cuda, in.v, &positive, true)) <= tolerance);
      if (cpu.params.binary()) {
        if (tied_bits(cpu, cuda, tokens) == 0)
          CHECK(relative_error(cuda.result.out.data, naive_hashed(cpu, in.v, &positive, true)) <= 1e-5);
      } else {
        for (std::uint64_t e = 0; e < cpu.hashes.projections.size(); ++e)
          REQUIRE(cuda.hashes.projections[e] == Approx(cpu.hashes.projections[e]).margin(1e-6));
      }
      // the first query of each group sees its own token alone: its output is its value
      for (std::uint64_t k = 0; k < c.head_dim; ++k)
        CHECK(cuda.result.out.data[k] == Approx(in.v.data[k]).epsilon(1e-5));
    }
}

TEST_CASE("GPU hashed attention runs more than 65,535 (batch, head) groups", "[hashed][gpu]") {
  if (!gpu_or_skip()) return;
  for (AttentionVariant v : {AttentionVariant::ecoformer, AttentionVariant::lsh_ecoformer}) {
    const AttentionConfig c = hashed_config(v, 32'769, 2, 7, 8, 8, 5);  // 65,538 groups: above grid y's 65,535
    INFO("variant " << name(v));
    const AttentionInputs in = synthetic_inputs(c, 4);
    RecordingSink sink;
    const HashedRun cpu = run_hashed_detailed(in, c, Device::cpu, 4, sink);
    const HashedRun cuda = run_hashed_detailed(in, c, Device::cuda, 4, sink);
    tied_bits(cpu, cuda, c.batch * c.heads * c.seq);
    bool positive = false;
    CHECK(relative_error(cuda.result.out.data, naive_hashed(cuda, in.v, &positive)) <= 1e-5);
  }
}
