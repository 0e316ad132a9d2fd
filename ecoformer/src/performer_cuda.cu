// CUDA Performer FAVOR+: per-row ‖x̃‖²/2, ωᵀx̃ by the shared batched GEMM (ω drawn on the host), the positive
// features exp(ωᵀx̃ − ‖x̃‖²/2)/√F in place, then φ(K)ᵀV, Σ_j φ(k_j), numerator, denominator and division.
#include <cmath>

#include "baseline_kernels.hpp"
#include "batched_gemm.cuh"
#include "ecosim/kernels/cuda_support.cuh"

namespace ecosim::ecoformer::detail {

namespace {
constexpr unsigned kThreads = 256;

__global__ void scale_elements(const float* x, float* scaled, long long count, float scale) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < count) scaled[i] = x[i] * scale;
}

__global__ void half_squared_norms(const float* x, float* half_sq_norm, long long rows, int d) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < d; ++c) sum += x[r * d + c] * x[r * d + c];
  half_sq_norm[r] = sum * 0.5f;
}

__global__ void positive_features(float* projected, const float* half_sq_norm, long long rows, long long f,
                                  float feature_scale) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows * f) projected[i] = expf(projected[i] - half_sq_norm[i / f]) * feature_scale;
}

__global__ void column_sums(const float* x, float* sums, long long groups, long long rows, long long cols) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= groups * cols) return;
  const float* base = x + (i / cols) * rows * cols + i % cols;
  float sum = base[0];
  for (long long r = 1; r < rows; ++r) sum += base[r * cols];
  sums[i] = sum;
}

__global__ void divide_rows(const float* numerator, const float* denominator, float* out, long long rows, int d) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float inverse = 1.0f / denominator[r];
  for (int c = 0; c < d; ++c) out[r * d + c] = numerator[r * d + c] * inverse;
}

long long ll(std::uint64_t x) { return static_cast<long long>(x); }

/// φ(x) for the g·n rows of x into phi (g·n·F).
void features(const float* x, float* scratch, float* half_sq_norm, const cuda::DeviceBuffer<float>& omega, float* phi,
              std::uint64_t g, std::uint64_t n, std::uint64_t d, std::uint64_t f) {
  const std::uint64_t rows = g * n;
  scale_elements<<<cuda::blocks_for(rows * d, kThreads), kThreads>>>(
      x, scratch, ll(rows * d), static_cast<float>(std::pow(static_cast<double>(d), -0.25)));
  cuda::check_launch("scale_elements");
  half_squared_norms<<<cuda::blocks_for(rows, kThreads), kThreads>>>(scratch, half_sq_norm, ll(rows),
                                                                     static_cast<int>(d));
  cuda::check_launch("half_squared_norms");
  // x̃ (n×d per group) · ωᵀ (d×F, ω stored F×d and shared by every group)
  batched_gemm({scratch, ll(n * d), ll(d), 1}, {omega.get(), 0, 1, ll(d)}, phi, g, n, f, d);
  positive_features<<<cuda::blocks_for(rows * f, kThreads), kThreads>>>(
      phi, half_sq_norm, ll(rows), ll(f), static_cast<float>(1.0 / std::sqrt(static_cast<double>(f))));
  cuda::check_launch("positive_features");
}
}  // namespace

RunResult performer_cuda(const AttentionInputs& in, const AttentionConfig& c, const KernelParameters& parameters,
                         const Reporter& report) {
  const std::uint64_t g = c.batch * c.heads, n = c.seq, d = c.head_dim, f = c.features;
  const cuda::DeviceBuffer<float> q(in.q.data), k(in.k.data), v(in.v.data);
  const cuda::DeviceBuffer<float> omega(parameters.at("omega"));
  cuda::DeviceBuffer<float> scratch(g * n * d), half_sq_norm(g * n), phi_q(g * n * f), phi_k(g * n * f);
  cuda::DeviceBuffer<float> kv(g * f * d), k_sum(g * f), numerator(g * n * d), denominator(g * n), out(g * n * d);
  cuda::EventTimer timer;
  features(q.get(), scratch.get(), half_sq_norm.get(), omega, phi_q.get(), g, n, d, f);
  report([=] { return stages::performer_features(c, "q"); });
  features(k.get(), scratch.get(), half_sq_norm.get(), omega, phi_k.get(), g, n, d, f);
  report([=] { return stages::performer_features(c, "k"); });
  // φ(K)ᵀ (F×n) · V (n×d)
  batched_gemm({phi_k.get(), ll(n * f), 1, ll(f)}, {v.get(), ll(n * d), ll(d), 1}, kv.get(), g, f, d, n);
  column_sums<<<cuda::blocks_for(g * f, kThreads), kThreads>>>(phi_k.get(), k_sum.get(), ll(g), ll(n), ll(f));
  cuda::check_launch("column_sums");
  batched_gemm({phi_q.get(), ll(n * f), ll(f), 1}, {kv.get(), ll(f * d), ll(d), 1}, numerator.get(), g, n, d, f);
  batched_gemm({phi_q.get(), ll(n * f), ll(f), 1}, {k_sum.get(), ll(f), 1, 0}, denominator.get(), g, n, 1, f);
  divide_rows<<<cuda::blocks_for(g * n, kThreads), kThreads>>>(numerator.get(), denominator.get(), out.get(), ll(g * n),
                                                               static_cast<int>(d));
  cuda::check_launch("divide_rows");
  const double ms = timer.stop_ms();
  report([=] { return stages::performer_mixing(c); });
  return cuda_result(c, out.download(), ms);
}

}  // namespace ecosim::ecoformer::detail
