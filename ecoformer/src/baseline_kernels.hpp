// Internal: the baseline attention variants (MSA, Performer, Linformer, Reformer) as CPU references and
// CUDA kernels of one shape: they take inputs already validated against config and their random parameters
// already checked (kernel_parameters.hpp; run.cpp does both), and report each stage to `report` right after
// running it.
// Reformer shares queries and keys (keys are the L2-normalised queries), so it reads Q and V only.
#pragma once
#include <cstdint>
#include <vector>

#include "ecosim/ecoformer/kernel_parameters.hpp"
#include "stage_reporter.hpp"

namespace ecosim::ecoformer::detail {

/// Reformer: scaled score a token gives itself (shared QK makes its own key the best match): low enough that
/// it gets no weight beside any other key, finite so a token with no other key still attends to itself.
inline constexpr float kReformerSelfScore = -1e5f;

/// A baseline's CPU reference: its output (the caller times it).
using CpuKernel = Tensor(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                         const Reporter& report);
CpuKernel msa_cpu, performer_cpu, linformer_cpu, reformer_cpu;

/// Softmax attention of one group (row-major n×d queries, keys×d keys and values) in the online form:
/// key blocks with a running maximum and sum, so no n×keys matrix is ever held. Shared by MSA and Linformer.
/// `causal`: query i sees keys j ≤ keys − n + i (bottom-right aligned, as with a KV cache); key blocks
/// wholly above a query block's last visible key are skipped.
void softmax_attention_cpu(const float* q, const float* k, const float* v, float* out, std::uint64_t n,
                           std::uint64_t keys, std::uint64_t d, bool causal = false);

/// Throws ecosim::Error unless config is valid, the kernels can run it (kernel_limitation) and Q, K, V are
/// non-empty, finite and of config's shape.
void validate_inputs(const AttentionInputs& in, const AttentionConfig& c);
/// Throws ecosim::Error (naming `what`) unless t is non-empty, finite and of config's shape.
void validate_tensor(const char* what, const Tensor& t, const AttentionConfig& c);
/// Throws ecosim::Error naming kernel_limitation(config) when it is not empty.
void require_runnable(const AttentionConfig& config);

/// An empty output tensor of the inputs' shape.
inline Tensor output_like(const Tensor& q) {
  return Tensor{q.batch, q.heads, q.seq, q.dim, std::vector<float>(q.data.size())};
}

#if ECOSIM_HAS_CUDA
/// A baseline's CUDA kernel: RunResult.latency_ms is the time of the kernels alone (CUDA events), without
/// transfers.
using CudaKernel = RunResult(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                             const Reporter& report);
CudaKernel msa_cuda, performer_cuda, linformer_cuda, reformer_cuda;

/// MSA on fp16 inputs (IEEE half bits, group-major like the fp32 tensors), converted to fp32 on load.
RunResult msa_fp16_cuda(const std::vector<std::uint16_t>& q, const std::vector<std::uint16_t>& k,
                        const std::vector<std::uint16_t>& v, const AttentionConfig& c, const Reporter& report);

/// Online-softmax attention on device buffers: g groups of n queries (group stride n·d) over `keys` keys
/// and values (group stride keys·d), head dim d ≤ 128; causal: query i sees the keys up to keys − n + i (keys ≥ n).
/// Shared by MSA and Linformer.
void softmax_attention_cuda(const float* q, const float* k, const float* v, float* out, std::uint64_t g,
                            std::uint64_t n, std::uint64_t keys, std::uint64_t d, bool causal = false);

/// A CUDA kernel's result: its downloaded output in the configuration's shape and the kernels' time.
inline RunResult cuda_result(const AttentionConfig& c, std::vector<float> out, double latency_ms) {
  return RunResult{Tensor{c.batch, c.heads, c.seq, c.head_dim, std::move(out)}, latency_ms, Device::cuda};
}
#endif

}  // namespace ecosim::ecoformer::detail
