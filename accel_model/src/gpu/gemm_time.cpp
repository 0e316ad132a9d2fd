// GEMM on a GPU: output tiles spread in waves over the SMs, each tile's main loop at the share of peak large
// GEMMs reach (less when rows are not 16-byte aligned) plus its pipeline fill, overlapped with its operand
// loads, then its epilogue's write; plus the launch.
#include <algorithm>
#include <cmath>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::gpu {

namespace {
double ceil_div(double a, double b) { return std::ceil(a / b); }
}  // namespace

double KernelModel::streamed_s(const GpuSpec& gpu, double bytes) const {
  return bytes / (value("hbm_fraction") * gpu.memory_bytes_per_s);
}

KernelTime KernelModel::gemm(const GpuSpec& gpu, const GemmShape& s) const {
  if (s.m == 0 || s.n == 0 || s.k == 0 || s.batch == 0) throw Error("GEMM dimensions m, n, k and batch must be >= 1");
  const double m = double(s.m), n = double(s.n), k = double(s.k), batch = double(s.batch);
  const double bytes_per_element = double(dtype_bytes(s.dtype));
  const double tile_m = value("gemm_tile_rows"), tile_n = value("gemm_tile_cols"), tile_k = value("gemm_tile_depth");
  const bool aligned = (s.k * dtype_bytes(s.dtype)) % 16 == 0 && (s.n * dtype_bytes(s.dtype)) % 16 == 0;
  const double efficiency = value("large_gemm_fraction_of_peak") * (aligned ? 1.0 : value("misaligned_gemm_fraction"));
  const double tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n) * batch;
  const double waves = ceil_div(tiles, double(gpu.sms));
  const double step_s = 2 * tile_m * tile_n * tile_k / (gpu.matmul_flops_per_s(s.dtype) / double(gpu.sms) * efficiency);
  const double compute_s = waves * (ceil_div(k, tile_k) + value("gemm_pipeline_fill_steps")) * step_s;
  const double load_bytes = batch * (m * k + k * n) * bytes_per_element,
               store_bytes = batch * m * n * bytes_per_element;
  KernelTime t;
  t.latency_s = value("launch_overhead_us") * 1e-6 + std::max(compute_s, streamed_s(gpu, load_bytes)) +
                streamed_s(gpu, store_bytes);
  t.flops = 2 * m * n * k * batch;
  t.bytes = load_bytes + store_bytes;
  return t;
}

}  // namespace ecosim::gpu
