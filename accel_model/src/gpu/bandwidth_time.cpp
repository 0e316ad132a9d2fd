// Bandwidth-bound kernels (copy, softmax, RMSNorm): every element read once and written once, at the share of
// the memory bandwidth a streaming kernel sustains — or, when the bytes fit in L2's resident share, at L2's
// bandwidth (SMs x clock x its bytes a clock per SM) where faster — plus the launch (which dominates small sizes).
#include <algorithm>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::gpu {

KernelTime KernelModel::bandwidth(const GpuSpec& gpu, BandwidthOp op, const RowsShape& s) const {
  if (s.rows == 0 || s.cols == 0) throw Error("rows and cols must be >= 1");
  if (s.dtype == DType::tf32)
    throw Error("tf32 is a tensor-core input format, not a storage type: a bandwidth-bound kernel moves fp32");
  const double elements = double(s.rows) * double(s.cols), b = double(dtype_bytes(s.dtype));
  const double weight_bytes = op == BandwidthOp::rmsnorm ? double(s.cols) * b : 0.0;  // RMSNorm's gain vector
  KernelTime t;
  t.bytes = 2 * elements * b + weight_bytes;
  if (t.bytes > double(gpu.memory_bytes))
    throw Error("the input and output need more memory than the " + gpu.name + " has");
  t.latency_s = streaming_kernel(gpu, t.bytes).latency_s;
  return t;
}

KernelTime KernelModel::streaming_kernel(const GpuSpec& gpu, double bytes) const {
  KernelTime t;
  t.bytes = bytes;
  const bool l2_resident = bytes <= value("l2_resident_share") * double(gpu.l2_bytes);
  const double l2_bytes_per_s = value("l2_bytes_per_clock_per_sm") * double(gpu.sms) * gpu.boost_clock_hz;
  // resident in L2, no slower than streamed from memory (a GPU whose L2 is slower than its memory's sustained rate)
  const double streamed = streamed_s(gpu, bytes);
  t.latency_s =
      value("launch_overhead_us") * 1e-6 + (l2_resident ? std::min(bytes / l2_bytes_per_s, streamed) : streamed);
  return t;
}

}  // namespace ecosim::gpu
