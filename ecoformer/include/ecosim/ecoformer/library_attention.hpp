// The library baseline of softmax attention on the GPU: what a framework's unfused attention runs, two cuBLAS
// strided batched SGEMMs (S = Q·Kᵀ/√D, O = P·V; FP32, no TF32) around a row-softmax kernel, the G·N² scores
// materialised in device memory. `compare --device cuda` and bench_attention time it beside ecosim's kernels;
// builds without CUDA throw ecosim::Error (gpu::unavailable).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/timing.hpp"

namespace ecosim::ecoformer {

struct LibraryAttention {
  timing::Stats time;
  std::vector<float> out;  // [batch][heads][seq][dim], to check against ecosim's MSA
};

/// The one-line name of the baseline, for tables and provenance.
inline constexpr const char* kLibraryAttentionName = "cuBLAS SGEMM, softmax, SGEMM (fp32, scores in device memory)";

/// The device bytes library_attention_cuda allocates for g = batch·heads groups of n rows of width d: the
/// g·n² fp32 scores and Q, K, V and O.
constexpr std::uint64_t library_attention_bytes(std::uint64_t g, std::uint64_t n, std::uint64_t d) {
  return sizeof(float) * (g * n * n + 4 * g * n * d);
}

/// Why library_attention_cuda cannot run at this shape on this device ("" when it can): its bytes above the
/// free device memory (cudaMemGetInfo); without CUDA, why not.
std::string library_attention_unfit(std::uint64_t g, std::uint64_t n, std::uint64_t d);

/// Times the plan's runs on inputs uploaded once (queries and keys one token set); ecosim::Error when cuBLAS
/// or an allocation fails (the G·N² fp32 scores must fit in device memory) or without CUDA.
LibraryAttention library_attention_cuda(const AttentionInputs& in, const timing::Plan& plan);

}  // namespace ecosim::ecoformer
