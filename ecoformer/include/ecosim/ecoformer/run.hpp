// Running one attention variant on given inputs — CUDA kernel or CPU reference — while reporting its work
// to an OpSink (exact convention). This is the entry point `ecosim run` and `ecosim compare` use.
// Layout: Q, K, V and the output are [batch][heads][seq][head_dim], row-major fp32.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ecosim/kernels/timing.hpp"
#include "ecosim/ops_counter/attention.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::ecoformer {

enum class Device { cpu, cuda };

/// Name prefix of the records run_attention reports ("attention.scores", …).
inline constexpr const char* kAttentionRecordPrefix = "attention";

struct Tensor {
  std::uint64_t batch = 0, heads = 0, seq = 0, dim = 0;
  std::vector<float> data;  // batch·heads·seq·dim values
};

struct AttentionInputs {
  Tensor q, k, v;
};

struct RunResult {
  Tensor out;
  double latency_ms = 0;  // CUDA events on the GPU, steady clock on the CPU; kernel time only
  Device device = Device::cpu;
};

/// Deterministic synthetic inputs of the config's shape (standard normal from the seed).
AttentionInputs synthetic_inputs(const AttentionConfig& config, std::uint64_t seed);

/// Whether run_attention has a kernel for v: the registry's has_kernel flag (lsa runs MSA over its windows;
/// a count-only variant is refused).
bool has_kernel(AttentionVariant v);

/// Why the kernels (CPU and CUDA alike) cannot run `config` although its variant has one ("" when they can): they
/// take one sequence length for queries and keys (config.keys apart from seq), compute a causal form
/// (config.causal) for msa, performer and the EcoFormer family only, and draw anchors from batch × seq tokens.
std::string kernel_limitation(const AttentionConfig& config);

/// Runs config.variant (config.projections is ignored: inputs are already projected) with its random
/// parameters drawn from `seed` (draw_kernel_parameters; run it with given ones: kernel_parameters.hpp);
/// reports every operation performed to `sink`. Throws ecosim::Error for mismatched shapes, bad parameters, a
/// config the kernels cannot run (kernel_limitation), or Device::cuda when no GPU is available.
RunResult run_attention(const AttentionInputs& inputs, const AttentionConfig& config, Device device, std::uint64_t seed,
                        OpSink& sink);

/// Fair latency of a kernel: plan.warmup unmeasured calls of `run`, then plan.repetitions measured ones, each
/// sample its RunResult::latency_ms (CUDA events around the kernels on the GPU, the steady clock around the
/// CPU reference; op records are handed to a sink that discards them, after the timer has stopped).
/// `device` names the method (timing::kCudaEvents or kSteadyClock); ecosim::Error when a run reports another.
timing::Stats time_runs(const timing::Plan& plan, Device device, const std::function<RunResult(OpSink&)>& run);

/// time_runs of run_attention(inputs, config, device, seed, ·).
timing::Stats time_attention(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                             std::uint64_t seed, const timing::Plan& plan);

}  // namespace ecosim::ecoformer
