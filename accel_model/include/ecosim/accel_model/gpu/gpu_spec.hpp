// A GPU as data: SMs, clock, L2, memory, and the dense peak rates by data type, read strictly from one JSON file
// per GPU (accel_model/data/gpus/<name>.json, built in) or from a user's file of the same form.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ecosim::gpu {

enum class DType { fp32, tf32, fp16, bf16, fp8 };

/// "fp32", "tf32", "fp16", "bf16", "fp8"; throws ecosim::Error naming the valid ones.
DType parse_dtype(std::string_view name);
std::string_view dtype_name(DType dtype);
/// Bytes of one element as stored (tf32 is stored as fp32).
std::uint64_t dtype_bytes(DType dtype);

/// What one SM holds at once, the limits of a kernel's occupancy (per compute capability).
struct SmResources {
  std::uint64_t registers = 0, threads = 0, blocks = 0, shared_bytes = 0;
};

struct GpuSpec {
  std::string name;                            // "H100 SXM"
  std::vector<std::string> cuda_device_names;  // the names CUDA gives the card ("NVIDIA H200"); may be empty
  std::string architecture;                    // "ampere", "hopper", "ada"
  std::uint64_t sms = 0;
  double boost_clock_hz = 0;
  std::uint64_t l2_bytes = 0, memory_bytes = 0;
  double memory_bytes_per_s = 0;
  double cuda_core_fp32_flops_per_s = 0;
  double tensor_flops_per_s[5] = {};  // dense, by DType; 0 where the GPU has no tensor path for it
  bool warpgroup_mma = false;         // Hopper's asynchronous wgmma (else mma.sync drives the tensor cores)
  double special_function_ops_per_clock_per_sm = 0;
  SmResources sm;  // registers, threads, thread blocks and shared memory one SM holds at once
  std::vector<std::string> sources;

  /// Dense tensor-core rate for `dtype` (fp32: the CUDA-core rate); throws when the GPU has none.
  double matmul_flops_per_s(DType dtype) const;
  /// exp/rcp throughput of the special-function units, per SM.
  double special_function_ops_per_s_per_sm() const { return special_function_ops_per_clock_per_sm * boost_clock_hz; }
};

/// The built-in GPUs' file names: a100-sxm, h100-sxm, h100-pcie, h200, l4, rtx4090.
std::vector<std::string> builtin_gpu_names();
/// A built-in GPU by file name ("h100-sxm") or display name ("H100 SXM"); throws ecosim::Error naming the
/// known ones.
GpuSpec builtin_gpu(std::string_view name);
/// The built-in GPU (its file name) whose cuda_device_names hold `device_name` as CUDA reports it, if any.
std::optional<std::string> builtin_gpu_of_device(std::string_view device_name);
/// A GPU description from JSON text; errors name `origin` and the key.
GpuSpec parse_gpu(std::string_view json_text, const std::string& origin);
/// A GPU description from a file.
GpuSpec read_gpu_file(const std::string& path);

}  // namespace ecosim::gpu
