// run_attention: input validation, the kernel parameters (drawn from the seed, or given and checked), then
// dispatch to the variant's CUDA kernel or CPU reference (hashed variants go to run_hashed_detailed, LSA to MSA
// over its windows); CPU time by steady clock, GPU time by CUDA events inside the kernels; the kernels' op
// records reach the sink after the run (stage_reporter.hpp).
#include <chrono>
#include <cmath>
#include <string>

#include "baseline_kernels.hpp"
#include "ecosim/ecoformer/hashed_attention.hpp"
#include "ecosim/ecoformer/kernel_parameters.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/hash_stages.hpp"
#include "lsa_windows.hpp"

namespace ecosim::ecoformer {

void detail::validate_tensor(const char* what, const Tensor& t, const AttentionConfig& c) {
  const auto shape = [](std::uint64_t b, std::uint64_t h, std::uint64_t n, std::uint64_t d) {
    return "[" + std::to_string(b) + ", " + std::to_string(h) + ", " + std::to_string(n) + ", " + std::to_string(d) +
           "]";
  };
  if (t.batch == 0 || t.heads == 0 || t.seq == 0 || t.dim == 0 || t.data.empty())
    throw Error(std::string(what) + " is empty (shape " + shape(t.batch, t.heads, t.seq, t.dim) + ")");
  if (t.batch != c.batch || t.heads != c.heads || t.seq != c.seq || t.dim != c.head_dim)
    throw Error(std::string(what) + " has shape " + shape(t.batch, t.heads, t.seq, t.dim) + ", expected " +
                shape(c.batch, c.heads, c.seq, c.head_dim) + " (batch, heads, seq, dim)");
  if (t.data.size() != checked_product({t.batch, t.heads, t.seq, t.dim}))
    throw Error(std::string(what) + " holds " + std::to_string(t.data.size()) + " values, its shape needs " +
                std::to_string(checked_product({t.batch, t.heads, t.seq, t.dim})));
  for (std::size_t i = 0; i < t.data.size(); ++i)
    if (!std::isfinite(t.data[i]))
      throw Error(std::string(what) + " holds a non-finite value (" + std::to_string(t.data[i]) + ") at flat index " +
                  std::to_string(i));
}

namespace {

/// The op records of timed runs: already counted by the caller's own run, dropped here.
class DiscardingSink : public OpSink {
 public:
  void record(const OpRecord&) override {}
};

detail::CpuKernel* cpu_kernel(AttentionVariant v) {
  switch (v) {
    case AttentionVariant::msa: return &detail::msa_cpu;
    case AttentionVariant::performer: return &detail::performer_cpu;
    case AttentionVariant::linformer: return &detail::linformer_cpu;
    case AttentionVariant::reformer: return &detail::reformer_cpu;
    default: throw Error("no baseline kernel for variant " + std::string(name(v)));
  }
}

RunResult run_cuda(const AttentionInputs& inputs, const AttentionConfig& c, const KernelParameters& parameters,
                   const detail::Reporter& report) {
  gpu::require("device cuda");
#if ECOSIM_HAS_CUDA
  switch (c.variant) {
    case AttentionVariant::msa: return detail::msa_cuda(inputs, c, parameters, report);
    case AttentionVariant::performer: return detail::performer_cuda(inputs, c, parameters, report);
    case AttentionVariant::linformer: return detail::linformer_cuda(inputs, c, parameters, report);
    case AttentionVariant::reformer: return detail::reformer_cuda(inputs, c, parameters, report);
    default: break;
  }
#else
  (void)inputs, (void)parameters, (void)report;
#endif
  throw Error("no CUDA kernel for variant " + std::string(name(c.variant)));
}

}  // namespace

bool has_kernel(AttentionVariant v) { return variant_info(v).has_kernel; }

std::string kernel_limitation(const AttentionConfig& c) {
  if (c.key_count() != c.seq)
    return "the kernels need as many keys as queries (here " + std::to_string(c.key_count()) + " keys for " +
           std::to_string(c.seq) + " queries)";
  if (stages::hashes_through_anchors(c.variant) && c.support > checked_mul(c.batch, c.seq))
    return "its " + std::to_string(c.support) + " anchors are drawn from the input's " +
           std::to_string(c.batch * c.seq) + " tokens (batch × seq): give --support at most that";
  const bool hashed = is_hashed(c.variant);
  if (c.causal && c.variant != AttentionVariant::msa && c.variant != AttentionVariant::performer && !hashed)
    return "the kernels compute causal attention for msa, performer and the EcoFormer family only";
  return "";
}

void detail::require_runnable(const AttentionConfig& config) {
  if (const std::string why = kernel_limitation(config); !why.empty())
    throw Error(std::string(name(config.variant)) + ": " + why + "; it can be counted, not run");
}

void detail::validate_inputs(const AttentionInputs& inputs, const AttentionConfig& config) {
  if (!has_kernel(config.variant))
    throw Error(std::string(name(config.variant)) +
                " is count-only: it has no kernel (count it with `ecosim count "
                "--attention " +
                std::string(name(config.variant)) +
                "`, compare it from its counts with `ecosim compare "
                "--variants " +
                std::string(name(config.variant)) + "`)");
  config.validate();
  require_runnable(config);
  validate_tensor("Q", inputs.q, config);
  validate_tensor("K", inputs.k, config);
  validate_tensor("V", inputs.v, config);
}

RunResult run_attention(const AttentionInputs& inputs, const AttentionConfig& config, Device device, std::uint64_t seed,
                        OpSink& sink) {
  return run_attention(inputs, config, device, draw_kernel_parameters(inputs, config, seed), sink);
}

RunResult run_attention(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                        const KernelParameters& parameters, OpSink& sink) {
  detail::validate_inputs(inputs, config);
  detail::require_runnable(config);
  check_kernel_parameters(parameters, config);
  if (is_hashed(config.variant))
    return run_hashed_detailed(inputs, config, device, hash_params_from(parameters, config), sink).result;
  if (config.variant == AttentionVariant::lsa) {
    const AttentionInputs windows{detail::lsa_partition(inputs.q, config), detail::lsa_partition(inputs.k, config),
                                  detail::lsa_partition(inputs.v, config)};
    RunResult r = run_attention(windows, detail::lsa_window_config(config), device, KernelParameters{}, sink);
    r.out = detail::lsa_merge(r.out, config);
    return r;
  }
  const detail::Reporter report(sink);
  RunResult result;
  if (device == Device::cuda) {
    result = run_cuda(inputs, config, parameters, report);
  } else {
    detail::CpuKernel* const kernel = cpu_kernel(config.variant);
    const auto start = std::chrono::steady_clock::now();
    Tensor out = kernel(inputs, config, parameters, report);
    const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
    result = RunResult{std::move(out), elapsed.count(), Device::cpu};
  }
  report.deliver();
  return result;
}

timing::Stats time_runs(const timing::Plan& plan, Device device, const std::function<RunResult(OpSink&)>& run) {
  return timing::measure(plan, device == Device::cuda ? timing::kCudaEvents : timing::kSteadyClock, [&] {
    DiscardingSink discard;
    const RunResult r = run(discard);
    if (r.device != device) throw Error("a timed run ran on another device than the one asked for");
    return r.latency_ms;
  });
}

timing::Stats time_attention(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                             std::uint64_t seed, const timing::Plan& plan) {
  return time_runs(plan, device, [&](OpSink& sink) { return run_attention(inputs, config, device, seed, sink); });
}

}  // namespace ecosim::ecoformer
