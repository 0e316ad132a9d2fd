// run_hashed: input validation, parameter preparation, and dispatch to the CPU reference or the CUDA kernels.
#include "ecosim/ecoformer/hashed_attention.hpp"

#include <bit>
#include <cmath>
#include <string>

#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "hashed_backends.hpp"

namespace ecosim::ecoformer {

namespace {

void require_shape(const char* what, const Tensor& t, const AttentionConfig& c) {
  if (t.batch != c.batch || t.heads != c.heads || t.seq != c.seq || t.dim != c.head_dim)
    throw Error(std::string("input ") + what + " has shape [" + std::to_string(t.batch) + "][" +
                std::to_string(t.heads) + "][" + std::to_string(t.seq) + "][" + std::to_string(t.dim) +
                "], expected [" + std::to_string(c.batch) + "][" + std::to_string(c.heads) + "][" +
                std::to_string(c.seq) + "][" + std::to_string(c.head_dim) + "]");
  if (t.data.size() != checked_product({t.batch, t.heads, t.seq, t.dim}))
    throw Error(std::string("input ") + what + " holds " + std::to_string(t.data.size()) +
                " values, not batch·heads·seq·dim");
}

void require_finite(const char* what, const Tensor& t) {
  for (std::size_t i = 0; i < t.data.size(); ++i)
    if (!std::isfinite(t.data[i]))
      throw Error(std::string("input ") + what + " holds a non-finite value (" + std::to_string(t.data[i]) +
                  ") at flat index " + std::to_string(i));
}

}  // namespace

std::int32_t hash_bias(std::uint64_t bits, HashedOptions::Bias bias) {
  if (bits < 1 || bits > 64) throw Error("bits = " + std::to_string(bits) + " is outside 1..64");
  return static_cast<std::int32_t>(bias == HashedOptions::Bias::power_of_two ? std::bit_ceil(bits + 1) : bits + 1);
}

namespace {

/// Everything run_hashed refuses, checked before any parameter is drawn or learned; returns the bias c.
std::int32_t check_hashed_problem(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                                  const HashedOptions& options) {
  config.validate();
  if (!is_hashed(config.variant))
    throw Error("run_hashed: variant '" + std::string(name(config.variant)) + "' is not a hashed variant");
  require_shape("q (shared q/k)", inputs.q, config);
  require_shape("v", inputs.v, config);
  if (!inputs.k.data.empty()) require_shape("k (ignored by hashed variants, but must match q)", inputs.k, config);
  require_finite("q", inputs.q);
  require_finite("v", inputs.v);
  const std::uint64_t bits = config.code_bits();
  const std::int32_t bias = hash_bias(bits, options.bias);
  // Binary denominators h_i·s + c·N are int32: |h_i·s| + c·N ≤ (b + c)·N must fit.
  if (checked_mul(bits + static_cast<std::uint64_t>(bias), config.seq) > 0x7fffffffu)
    throw Error("seq = " + std::to_string(config.seq) +
                " is too long for int32 hash denominators with b = " + std::to_string(bits));
  if (const std::string why = kernel_limitation(config); !why.empty())
    throw Error(std::string(name(config.variant)) + ": " + why);
  if (device == Device::cuda) gpu::require("device cuda");
  return bias;
}

}  // namespace

HashedRun run_hashed_detailed(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                              std::uint64_t seed, OpSink& sink, const HashedOptions& options) {
  check_hashed_problem(inputs, config, device, options);
  return run_hashed_detailed(inputs, config, device, make_hash_params(inputs.q, config, seed), sink, options);
}

HashedRun run_hashed_detailed(const AttentionInputs& inputs, const AttentionConfig& config, Device device,
                              HashParams params, OpSink& sink, const HashedOptions& options) {
  const std::int32_t bias = check_hashed_problem(inputs, config, device, options);
  HashedRun run;
  run.params = std::move(params);
  run.bias = bias;
  const detail::HashedProblem problem{config, inputs.q, inputs.v, run.params, bias};
  const detail::Reporter report(sink);
#if ECOSIM_HAS_CUDA
  detail::HashedOutput out = device == Device::cuda ? detail::hashed_attention_cuda(problem, report)
                                                    : detail::hashed_attention_cpu(problem, report);
#else
  detail::HashedOutput out = detail::hashed_attention_cpu(problem, report);
#endif
  report.deliver();
  run.result = RunResult{std::move(out.out), out.latency_ms, device};
  run.hashes = std::move(out.hashes);
  return run;
}

RunResult run_hashed(const AttentionInputs& inputs, const AttentionConfig& config, Device device, std::uint64_t seed,
                     OpSink& sink) {
  return run_hashed_detailed(inputs, config, device, seed, sink).result;
}

}  // namespace ecosim::ecoformer
