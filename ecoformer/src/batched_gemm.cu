// The strided batched GEMM of batched_gemm.cuh: one 16×16 output tile per block, A and B staged through
// shared memory, batches beyond the grid's z limit in several launches.
#include <algorithm>
#include <string>

#include "batched_gemm.cuh"
#include "ecosim/kernels/cuda_support.cuh"

namespace ecosim::ecoformer::detail {

namespace {
constexpr int kTile = 16;

__global__ void batched_gemm_kernel(StridedMatrix a, StridedMatrix b, float* c, long long m, long long n, long long k) {
  __shared__ float a_tile[kTile][kTile + 1];
  __shared__ float b_tile[kTile][kTile + 1];
  const long long batch = blockIdx.z;
  const long long row = static_cast<long long>(blockIdx.x) * kTile + threadIdx.y;
  const long long col = static_cast<long long>(blockIdx.y) * kTile + threadIdx.x;
  const float* a_base = a.data + batch * a.batch;
  const float* b_base = b.data + batch * b.batch;
  float acc = 0.0f;
  for (long long k0 = 0; k0 < k; k0 += kTile) {
    const long long ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    a_tile[threadIdx.y][threadIdx.x] = row < m && ka < k ? a_base[row * a.row + ka * a.col] : 0.0f;
    b_tile[threadIdx.y][threadIdx.x] = kb < k && col < n ? b_base[kb * b.row + col * b.col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int t = 0; t < kTile; ++t) acc += a_tile[threadIdx.y][t] * b_tile[t][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[batch * m * n + row * n + col] = acc;
}
}  // namespace

void batched_gemm(StridedMatrix a, StridedMatrix b, float* c, std::uint64_t batch, std::uint64_t m, std::uint64_t n,
                  std::uint64_t k) {
  const std::uint64_t col_tiles = (n + kTile - 1) / kTile;
  if (col_tiles > cuda::kMaxGridYZ) throw Error("CUDA GEMM: " + std::to_string(n) + " columns exceed the grid");
  const dim3 threads(kTile, kTile);
  for (std::uint64_t first = 0; first < batch; first += cuda::kMaxGridYZ) {  // grid z is limited to 65535
    const std::uint64_t count = std::min(cuda::kMaxGridYZ, batch - first);
    const StridedMatrix a_part{a.data + static_cast<long long>(first) * a.batch, a.batch, a.row, a.col};
    const StridedMatrix b_part{b.data + static_cast<long long>(first) * b.batch, b.batch, b.row, b.col};
    const dim3 grid(cuda::blocks_for(m, kTile, "batched_gemm"), static_cast<unsigned>(col_tiles),
                    static_cast<unsigned>(count));
    batched_gemm_kernel<<<grid, threads>>>(a_part, b_part, c + first * m * n, static_cast<long long>(m),
                                           static_cast<long long>(n), static_cast<long long>(k));
    cuda::check_launch("batched_gemm");
  }
}

}  // namespace ecosim::ecoformer::detail
