// The library baseline of softmax attention on the GPU: what a framework's unfused attention runs, two cuBLAS
// strided batched SGEMMs (S = Q·Kᵀ/√D, O = P·V; FP32, no TF32) around a row-softmax kernel, the G·N² scores
// materialised in device memory. `compare --device cuda` and bench_attention time it beside ecosim's kernels;
// builds without CUDA throw ecosim::Error (gpu::unavailable).
#pragma once
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

/// Times the plan's runs on inputs uploaded once (queries and keys one token set); ecosim::Error when cuBLAS
/// or an allocation fails (the G·N² fp32 scores must fit in device memory) or without CUDA.
LibraryAttention library_attention_cuda(const AttentionInputs& in, const timing::Plan& plan);

}  // namespace ecosim::ecoformer
