// The library baseline of bench_attention on the GPU: softmax attention as two cuBLAS strided batched SGEMMs
// (S = Q·Kᵀ/√D, O = P·V, FP32 without TF32) around a row softmax kernel, the score matrix materialised in
// device memory. CUDA builds only (ECOSIM_HAS_CUDA).
#pragma once
#include <vector>

#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/timing.hpp"

namespace ecosim::bench {

struct CublasMsa {
  timing::Stats time;
  std::vector<float> out;  // [batch][heads][seq][dim], to check against ecosim's MSA
};

/// Times the plan's runs on inputs already uploaded once; ecosim::Error when cuBLAS or an allocation fails
/// (the G·N² scores must fit in device memory).
CublasMsa cublas_msa(const ecoformer::AttentionInputs& in, const timing::Plan& plan);

}  // namespace ecosim::bench
