// The GPU performance model per kernel class: GEMM (tiles and waves over SMs, alignment, the share of peak large
// GEMMs reach), fused attention (FlashAttention-2, FlashAttention-3, cuDNN styles: per-tile tensor work against
// softmax work, pipeline fill, causal tiles skipped, backward pass), unfused attention (scores materialised),
// bandwidth-bound kernels (copy, softmax, RMSNorm) and launch overhead. Its constants are data
// (accel_model/data/gpu_kernel_model.json), each with the measured points that tuned it.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/accel_model/gpu/gpu_spec.hpp"

namespace ecosim::gpu {

/// A modelled kernel (or sequence of kernels): its latency and the work it is credited with.
struct KernelTime {
  double latency_s = 0;
  double flops = 0;  // attention: FlashAttention's count (4·B·N²·H·D forward, halved when causal, ×2.5 bwd)
  double bytes = 0;  // bytes the kernel moves to and from memory (bandwidth class: read + written)
  double tflops() const { return latency_s > 0 ? flops / latency_s / 1e12 : 0; }
  double gb_per_s() const { return latency_s > 0 ? bytes / latency_s / 1e9 : 0; }
};

struct GemmShape {
  std::uint64_t m = 0, n = 0, k = 0, batch = 1;
  DType dtype = DType::bf16;
};

/// naive: materialised attention as PyTorch composes it, in the inputs' dtype; sdpa_math: PyTorch's SDPA math back
/// end, the same computed in fp32 whatever the inputs (≥ 2.5), with their conversions to fp32 and the output's back.
enum class AttentionImpl { flash2, flash3, cudnn, naive, ecosim, sdpa_math };
AttentionImpl parse_attention_impl(std::string_view name);  // throws naming the valid ones
std::string_view attention_impl_name(AttentionImpl impl);

struct AttentionShape {
  std::uint64_t batch = 0, heads = 0, seq = 0, kv_seq = 0, dim = 0;  // kv_seq 0: = seq
  bool causal = false, backward = false;                             // backward: the backward pass is timed too
  DType dtype = DType::fp16;
  bool forward = true;         // false with backward: the backward pass alone
  std::uint64_t window = 0;    // causal sliding window: each query over the W keys ending at it (0: every earlier key)
  std::uint64_t kv_heads = 0;  // grouped-query attention: the K/V heads, dividing heads (0: = heads)
};

/// "fwd", "bwd" or "fwd+bwd" into `shape`'s forward and backward flags; throws naming the valid ones.
void set_attention_pass(AttentionShape& shape, std::string_view pass);

/// How a latency is timed: the kernels alone, or one call between two CUDA events — an eager PyTorch call, or one
/// CUDA runtime call from C++ such as cudaMemcpy (what a per-call benchmark measures: the call's CPU side runs
/// while the GPU waits, inside the interval).
enum class Timed { kernel, pytorch_call, cuda_call };
Timed parse_timed(std::string_view name);  // "kernel", "pytorch-call" or "cuda-call"; throws naming the valid ones

enum class BandwidthOp { copy, softmax, rmsnorm };
BandwidthOp parse_bandwidth_op(std::string_view name);  // throws naming the valid ones

struct RowsShape {
  std::uint64_t rows = 0, cols = 0;
  DType dtype = DType::fp16;
};

/// One constant of the model: its value, why it has it, and the ids of the measured points that tuned it
/// (empty: set from the hardware or the algorithm, not from a measurement).
struct ModelConstant {
  double value = 0;
  std::string basis;
  std::vector<std::string> tuned_on;
};

/// The model's constants as read from the built-in gpu_kernel_model.json (or another text of that form).
class KernelModel {
 public:
  static const KernelModel& builtin();
  static KernelModel parse(std::string_view json_text, const std::string& origin);

  KernelTime gemm(const GpuSpec& gpu, const GemmShape& shape) const;
  KernelTime attention(const GpuSpec& gpu, AttentionImpl impl, const AttentionShape& shape) const;
  KernelTime bandwidth(const GpuSpec& gpu, BandwidthOp op, const RowsShape& shape) const;
  /// `t` as `timed` measures it: a call adds its CPU side (pytorch_call_overhead_us, cuda_call_overhead_us).
  KernelTime timed(KernelTime t, Timed timed) const;
  /// A bandwidth-bound kernel that moves `bytes` (read + written): from L2 when they fit in its resident share
  /// (the kernel run again on the same buffers, or on its producer's output), else from memory.
  KernelTime streaming_kernel(const GpuSpec& gpu, double bytes) const;

  /// Blocks of ecosim's attention kernel (ecosim_attention_block_rows threads each) one SM of `gpu` holds at
  /// once at head width `dim`: the least its registers, threads, blocks and shared memory allow.
  std::uint64_t ecosim_attention_resident_blocks(const GpuSpec& gpu, std::uint64_t dim) const;

  const std::map<std::string, ModelConstant>& constants() const { return constants_; }
  double value(const std::string& name) const;

 private:
  KernelTime fused_attention(const GpuSpec& gpu, AttentionImpl impl, const AttentionShape& s) const;
  KernelTime unfused_attention(const GpuSpec& gpu, const AttentionShape& s) const;
  KernelTime sdpa_math_attention(const GpuSpec& gpu, const AttentionShape& s) const;
  KernelTime ecosim_attention(const GpuSpec& gpu, const AttentionShape& s) const;
  KernelTime ecosim_decode_attention(const GpuSpec& gpu, const AttentionShape& s) const;
  /// The GEMM computed as laid out: C = A·B, tiles of its M × N output (gemm takes Cᵀ = BᵀAᵀ where N is at most one
  /// MMA's rows and that is faster).
  KernelTime oriented_gemm(const GpuSpec& gpu, const GemmShape& shape) const;
  double streamed_s(const GpuSpec& gpu, double bytes) const;
  /// Ways a library splits the reduction of `units` work units (output tiles) over the SMs they leave idle, at
  /// most `most` (its reduction's steps): split-K of a skinny GEMM. 1: none.
  static double idle_sm_splits(double units, double sms, double most);
  std::map<std::string, ModelConstant> constants_;
};

}  // namespace ecosim::gpu
