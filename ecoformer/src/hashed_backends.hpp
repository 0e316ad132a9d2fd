// Internal: the two implementations of hashed attention behind run_hashed — the CPU reference and the CUDA
// kernels — with the same inputs (validated, parameters prepared) and the same phase-by-phase reporting.
#pragma once
#include <cstdint>

#include "ecosim/ecoformer/hashed_attention.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"
#include "stage_reporter.hpp"

namespace ecosim::ecoformer::detail {

struct HashedProblem {
  const AttentionConfig& config;
  const Tensor& qk;  // shared queries/keys, not normalised
  const Tensor& v;
  const HashParams& params;
  std::int32_t bias;  // c
};

struct HashedOutput {
  Tensor out;
  TokenHashes hashes;
  double latency_ms = 0;
};

HashedOutput hashed_attention_cpu(const HashedProblem& problem, const Reporter& report);
/// Only in CUDA builds (ECOSIM_HAS_CUDA); the caller has checked that a GPU is available.
HashedOutput hashed_attention_cuda(const HashedProblem& problem, const Reporter& report);

}  // namespace ecosim::ecoformer::detail
