// Published measurements of GPU kernels (accel_model/data/gpu_measurements.json), each with its source, GPU,
// implementation, shape, dtype and conditions, and the model's prediction of each: the validation set of the
// GPU model (scripts/validate_gpu_model, tests/accel_model/gpu_model_test.cpp).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/accel_model/gpu/kernel_model.hpp"

namespace ecosim::gpu {

/// The library kernels' classes, and ecosim's own kernels (as written in ecoformer/src/*.cu) as their own class.
enum class KernelClass { gemm, fused_attention, unfused_attention, bandwidth, ecosim_kernel };
std::string_view kernel_class_name(KernelClass c);

struct MeasuredPoint {
  std::string id, source, gpu, op, impl, conditions;
  KernelClass kernel_class = KernelClass::gemm;
  GemmShape gemm;
  AttentionShape attention;
  RowsShape rows;
  Timed timed = Timed::kernel;  // attention and bandwidth points: "timed" (default kernel)
  std::string metric;           // "tflops" or "gbs"
  double low = 0, high = 0;     // the published value (low == high) or range
};

/// The points of the built-in file (or of `json_text`), read strictly; each point's source must be one of the
/// file's sources and its GPU a built-in one.
std::vector<MeasuredPoint> builtin_measurements();
std::vector<MeasuredPoint> parse_measurements(std::string_view json_text, const std::string& origin);

/// The model's value of the point's metric (TFLOP/s or GB/s) with `model`.
double modelled_value(const MeasuredPoint& point, const KernelModel& model);
/// Relative error of `modelled` against the published value (a range: against its nearer end, 0 inside it).
double relative_error(const MeasuredPoint& point, double modelled);

}  // namespace ecosim::gpu
