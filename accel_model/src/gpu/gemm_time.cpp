// GEMM on a GPU: output tiles spread in waves over the SMs, each tile's main loop at the share of peak large
// GEMMs reach (less when rows are not 16-byte aligned) plus its pipeline fill, overlapped with its operand
// loads, then its epilogue's write; plus the launch. A product of few rows (a decode step's) runs the library's
// skinny kernels: tiles only as tall as its rows (to the tensor cores' granularity), and where the tiles leave
// SMs idle their K loop split over them (split-K), the partial sums combined in a second pass. A product of no more
// columns than one MMA's rows runs as its transpose Cᵀ = BᵀAᵀ where that is faster (the library's GEMV and
// small-M kernels serve a skinny dimension on either side): it costs what the same product of few rows does.
#include <algorithm>
#include <cmath>
#include <utility>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::gpu {

namespace {
double ceil_div(double a, double b) { return std::ceil(a / b); }
}  // namespace

double KernelModel::streamed_s(const GpuSpec& gpu, double bytes) const {
  return bytes / (value("hbm_fraction") * gpu.memory_bytes_per_s);
}

double KernelModel::idle_sm_splits(double units, double sms, double most) {
  return units < sms ? std::min(most, std::max(1.0, std::floor(sms / units))) : 1.0;
}

KernelTime KernelModel::gemm(const GpuSpec& gpu, const GemmShape& s) const {
  if (s.m == 0 || s.n == 0 || s.k == 0 || s.batch == 0) throw Error("GEMM dimensions m, n, k and batch must be >= 1");
  const KernelTime c = oriented_gemm(gpu, s);
  if (double(s.n) > value("gemm_min_tile_rows")) return c;
  GemmShape transposed = s;
  std::swap(transposed.m, transposed.n);
  const KernelTime ct = oriented_gemm(gpu, transposed);
  return ct.latency_s < c.latency_s ? ct : c;
}

KernelTime KernelModel::oriented_gemm(const GpuSpec& gpu, const GemmShape& s) const {
  const double m = double(s.m), n = double(s.n), k = double(s.k), batch = double(s.batch);
  const double bytes_per_element = double(dtype_bytes(s.dtype));
  const double tile_m = value("gemm_tile_rows"), tile_n = value("gemm_tile_cols"), tile_k = value("gemm_tile_depth");
  const bool aligned = (s.k * dtype_bytes(s.dtype)) % 16 == 0 && (s.n * dtype_bytes(s.dtype)) % 16 == 0;
  const double efficiency = value("large_gemm_fraction_of_peak") * (aligned ? 1.0 : value("misaligned_gemm_fraction"));
  const double granule = value("gemm_min_tile_rows");
  const double rows = std::min(tile_m, granule * ceil_div(m, granule));  // the rows one tile computes
  const double tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n) * batch, sms = double(gpu.sms);
  const double k_steps = ceil_div(k, tile_k);
  const double step_s = 2 * rows * tile_n * tile_k / (gpu.matmul_flops_per_s(s.dtype) / sms * efficiency);
  // (an FP8 GEMM writes bf16, as cuBLASLt's FP8 kernels do)
  const double out_bytes = s.dtype == DType::fp8 ? double(dtype_bytes(DType::bf16)) : bytes_per_element;
  const double load_bytes = batch * (m * k + k * n) * bytes_per_element, store_bytes = batch * m * n * out_bytes;
  const double launch_s = value("launch_overhead_us") * 1e-6;
  // split-K where the tiles leave SMs idle, the fp32 partials combined by a second launch — the number of splits
  // (1 … min(K steps, SMs): more would only add waves) that is fastest, as a library's heuristic chooses
  const auto timed = [&](double splits) {
    const double waves = ceil_div(tiles * splits, sms);
    const double compute_s = waves * (ceil_div(k_steps, splits) + value("gemm_pipeline_fill_steps")) * step_s;
    const double partial_bytes = splits > 1 ? batch * m * n * splits * 4.0 : 0.0;  // fp32 partials
    KernelTime t;
    t.latency_s = launch_s + std::max(compute_s, streamed_s(gpu, load_bytes)) + streamed_s(gpu, store_bytes);
    if (splits > 1) t.latency_s += launch_s + streamed_s(gpu, 2 * partial_bytes);  // written, then read
    t.flops = 2 * m * n * k * batch;
    t.bytes = load_bytes + store_bytes + 2 * partial_bytes;
    return t;
  };
  KernelTime best = timed(1);
  for (double splits = 2; tiles < sms && splits <= std::min(k_steps, sms); ++splits)
    if (const KernelTime t = timed(splits); t.latency_s < best.latency_s) best = t;
  return best;
}

}  // namespace ecosim::gpu
