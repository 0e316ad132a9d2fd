// run_msa_fp16: rounds Q, K and V to fp16, then runs the online-softmax MSA on them — the CPU reference on
// the rounded values, or the CUDA kernel that keeps them as fp16 and converts on load.
#include <chrono>
#include <string>

#include "baseline_kernels.hpp"
#include "ecosim/ecoformer/msa_fp16.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::ecoformer {

namespace {
std::vector<std::uint16_t> to_half(const char* what, const Tensor& t) {
  std::vector<std::uint16_t> h(t.data.size());
  for (std::size_t i = 0; i < h.size(); ++i) {
    h[i] = to_half_bits(t.data[i]);
    if ((h[i] & 0x7c00u) == 0x7c00u)
      throw Error(std::string(what) + " value " + std::to_string(t.data[i]) + " at flat index " + std::to_string(i) +
                  " is outside the fp16 range (|x| ≤ 65504)");
  }
  return h;
}

Tensor from_half(const Tensor& shape, const std::vector<std::uint16_t>& h) {
  Tensor t = detail::output_like(shape);
  for (std::size_t i = 0; i < h.size(); ++i) t.data[i] = from_half_bits(h[i]);
  return t;
}
}  // namespace

RunResult run_msa_fp16(const AttentionInputs& inputs, const AttentionConfig& config, Device device, OpSink& sink) {
  if (config.variant != AttentionVariant::msa)
    throw Error("fp16 inputs are supported by msa only, not " + std::string(name(config.variant)));
  detail::validate_inputs(inputs, config);
  detail::require_runnable(config);
  const std::vector<std::uint16_t> q = to_half("Q", inputs.q), k = to_half("K", inputs.k), v = to_half("V", inputs.v);
  const detail::Reporter report(sink);
  if (device == Device::cuda) {
    gpu::require("device cuda");
#if ECOSIM_HAS_CUDA
    RunResult result = detail::msa_fp16_cuda(q, k, v, config, report);
    report.deliver();
    return result;
#endif
  }
  const Tensor rq = from_half(inputs.q, q), rk = from_half(inputs.k, k), rv = from_half(inputs.v, v);
  Tensor out = detail::output_like(inputs.q);
  const std::uint64_t g = config.batch * config.heads, n = config.seq, d = config.head_dim;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < g; ++i)
    detail::softmax_attention_cpu(&rq.data[i * n * d], &rk.data[i * n * d], &rv.data[i * n * d], &out.data[i * n * d],
                                  n, n, d, config.causal);
  const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
  report([=] { return stages::softmax_attention(config, DType::fp16); });
  report.deliver();
  return RunResult{std::move(out), elapsed.count(), Device::cpu};
}

}  // namespace ecosim::ecoformer
