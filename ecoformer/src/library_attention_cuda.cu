// library_attention.hpp: Sᵀ = K·Qᵀ·(1/√D) and Oᵀ = Vᵀ·Pᵀ in cuBLAS's column-major terms (row-major S and O),
// and one block per score row for the softmax (max, sum of exponentials, scale).
#include "ecosim/ecoformer/library_attention.hpp"

#include <cublas_v2.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "ecosim/kernels/cuda_support.cuh"

namespace ecosim::ecoformer {

namespace {

constexpr unsigned kThreads = 256;

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cuBLAS ") + what + ": status " + std::to_string(static_cast<int>(status)));
}

/// Block-wide reduction of one value per thread (max or sum); every thread gets the result.
template <bool kMax>
__device__ float block_reduce(float v) {
  __shared__ float part[kThreads];
  part[threadIdx.x] = v;
  __syncthreads();
  for (unsigned half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      part[threadIdx.x] =
          kMax ? fmaxf(part[threadIdx.x], part[threadIdx.x + half]) : part[threadIdx.x] + part[threadIdx.x + half];
    __syncthreads();
  }
  const float result = part[0];
  __syncthreads();  // part is reused by the next call
  return result;
}

__global__ void softmax_rows(float* s, long long n) {
  float* row = s + static_cast<long long>(blockIdx.x) * n;
  float m = -INFINITY;
  for (long long j = threadIdx.x; j < n; j += kThreads) m = fmaxf(m, row[j]);
  m = block_reduce<true>(m);
  float sum = 0.0f;
  for (long long j = threadIdx.x; j < n; j += kThreads) {
    row[j] = expf(row[j] - m);
    sum += row[j];
  }
  const float inv = 1.0f / block_reduce<false>(sum);
  for (long long j = threadIdx.x; j < n; j += kThreads) row[j] *= inv;
}

class Handle {
 public:
  Handle() { check(cublasCreate(&h_), "cublasCreate"); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { cublasDestroy(h_); }
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace

std::string library_attention_unfit(std::uint64_t g, std::uint64_t n, std::uint64_t d) {
  std::size_t free_bytes = 0, total_bytes = 0;
  cuda::check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::uint64_t need = library_attention_bytes(g, n, d);
  if (need <= free_bytes) return "";
  char reason[96];
  std::snprintf(reason, sizeof reason, "scores and tensors need %.3g GB > %.3g GB free on the device",
                static_cast<double>(need) / 1e9, static_cast<double>(free_bytes) / 1e9);
  return reason;
}

LibraryAttention library_attention_cuda(const AttentionInputs& in, const timing::Plan& plan) {
  const long long g = static_cast<long long>(in.q.batch * in.q.heads), n = static_cast<long long>(in.q.seq),
                  d = static_cast<long long>(in.q.dim);
  if (g > 0x7fffffffLL || n > 0x7fffffffLL) throw Error("library attention: batch·heads or seq beyond int");
  if (in.k.seq != in.q.seq) throw Error("library attention: queries and keys must be one token set");
  const cuda::DeviceBuffer<float> q(in.q.data), k(in.k.data), v(in.v.data);
  cuda::DeviceBuffer<float> scores(static_cast<std::uint64_t>(g * n * n)), out(static_cast<std::uint64_t>(g * n * d));
  const Handle handle;
  check(cublasSetMathMode(handle.get(), CUBLAS_DEFAULT_MATH), "cublasSetMathMode");  // FP32, no TF32
  const float scale = 1.0f / std::sqrt(static_cast<float>(d)), one = 1.0f, zero = 0.0f;
  const int ni = static_cast<int>(n), di = static_cast<int>(d), gi = static_cast<int>(g);
  const unsigned rows =
      cuda::grid_x(static_cast<std::uint64_t>(g * n), "library attention softmax (one block per row)");
  LibraryAttention result;
  result.time = cuda::time_stats(plan, [&] {
    check(cublasSgemmStridedBatched(handle.get(), CUBLAS_OP_T, CUBLAS_OP_N, ni, ni, di, &scale, k.get(), di, n * d,
                                    q.get(), di, n * d, &zero, scores.get(), ni, n * n, gi),
          "scores");
    softmax_rows<<<rows, kThreads>>>(scores.get(), n);
    check(cublasSgemmStridedBatched(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, di, ni, ni, &one, v.get(), di, n * d,
                                    scores.get(), ni, n * n, &zero, out.get(), di, n * d, gi),
          "context");
  });
  result.out = out.download();
  return result;
}

}  // namespace ecosim::ecoformer
