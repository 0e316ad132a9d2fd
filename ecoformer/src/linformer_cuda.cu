// CUDA Linformer: E·K and E·V by the shared batched GEMM (E, drawn on the host, shared by every group),
// then the online-softmax attention kernel of MSA over the k projected keys.
#include "baseline_kernels.hpp"
#include "batched_gemm.cuh"
#include "ecosim/kernels/cuda_support.cuh"

namespace ecosim::ecoformer::detail {

RunResult linformer_cuda(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                         const Reporter& report) {
  const std::uint64_t g = c.batch * c.heads, n = c.seq, d = c.head_dim, k = c.proj_k;
  const cuda::DeviceBuffer<float> q(in.q.data), keys(in.k.data), values(in.v.data);
  const cuda::DeviceBuffer<float> e(parameters.at("length_projection"));
  cuda::DeviceBuffer<float> keys_k(g * k * d), values_k(g * k * d), out(in.q.data.size());
  const auto ll = [](std::uint64_t x) { return static_cast<long long>(x); };
  const StridedMatrix e_shared{e.get(), 0, ll(n), 1};
  cuda::EventTimer timer;
  batched_gemm(e_shared, {keys.get(), ll(n * d), ll(d), 1}, keys_k.get(), g, k, d, n);
  batched_gemm(e_shared, {values.get(), ll(n * d), ll(d), 1}, values_k.get(), g, k, d, n);
  report([=] { return stages::linformer_projections(c); });
  softmax_attention_cuda(q.get(), keys_k.get(), values_k.get(), out.get(), g, n, k, d);
  const double ms = timer.stop_ms();
  report([=] { return stages::softmax_attention(c); });
  return cuda_result(c, out.download(), ms);
}

}  // namespace ecosim::ecoformer::detail
