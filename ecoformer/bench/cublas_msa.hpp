// The library baseline of bench_attention on the GPU: softmax attention as two cuBLAS strided batched SGEMMs
// (S = Q·Kᵀ/√D, O = P·V, FP32 without TF32) around a row softmax kernel, the score matrix materialised in
// device memory. CUDA builds only (ECOSIM_HAS_CUDA).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/timing.hpp"

namespace ecosim::bench {

struct CublasMsa {
  timing::Stats time;
  std::vector<float> out;  // [batch][heads][seq][dim], to check against ecosim's MSA
};

/// The device bytes cublas_msa allocates for g = batch·heads groups of n rows of width d: the g·n² fp32 scores
/// and Q, K, V and O.
constexpr std::uint64_t cublas_msa_bytes(std::uint64_t g, std::uint64_t n, std::uint64_t d) {
  return sizeof(float) * (g * n * n + 4 * g * n * d);
}

/// Why cublas_msa cannot run at this shape on this device ("" when it can): cublas_msa_bytes above the free
/// device memory (cudaMemGetInfo).
std::string cublas_msa_unfit(std::uint64_t g, std::uint64_t n, std::uint64_t d);

/// Times the plan's runs on inputs already uploaded once; ecosim::Error when cuBLAS or an allocation fails
/// (the G·N² scores must fit in device memory).
CublasMsa cublas_msa(const ecoformer::AttentionInputs& in, const timing::Plan& plan);

}  // namespace ecosim::bench
