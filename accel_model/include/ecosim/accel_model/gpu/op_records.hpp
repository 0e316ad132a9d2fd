// A list of operation records (a model's or a layer's trace) costed on a GPU by the GPU model's kernel classes,
// as four kinds of software: ecosim's own kernels as written (fp32 on CUDA cores, softmax attention as its fused
// online-softmax kernel); the best library (softmax attention as the fastest of FlashAttention-2/3 and cuDNN in
// fp16, matmuls as bf16 tensor-core GEMMs); and PyTorch eager, as a training step runs there — every record its
// own library kernel (attention unfused, as ecosim's zoo networks write it), matmuls in fp32 and convolutions on
// TF32 tensor cores (PyTorch's defaults) or both in fp16 under autocast, and the whole no faster than the CPU
// dispatches its ops (pytorch_op_dispatch_us a record: a step of small kernels is bound by the Python side).
// Element-wise, reduction and copy records are bandwidth-bound in all.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::gpu {

enum class Software { ecosim_kernels, best_library, pytorch_fp32, pytorch_amp };
std::string_view software_description(Software software);

/// The modelled latency of a list of records, and why any softmax-attention group in it was priced record by
/// record instead of as the fused kernel (a head width, window or size the fused kernels do not take).
struct ModelledLatency {
  double seconds = 0;
  std::vector<std::string> op_by_op;  // each distinct reason once
};

/// The modelled latency of `ops` in sequence on `gpu`, each kernel with its launch.
ModelledLatency modelled_latency(const std::vector<OpRecord>& ops, const GpuSpec& gpu, Software software,
                                 const KernelModel& model = KernelModel::builtin());

/// modelled_latency(...).seconds, for callers that report no reasons.
double modelled_latency_s(const std::vector<OpRecord>& ops, const GpuSpec& gpu, Software software,
                          const KernelModel& model = KernelModel::builtin());

}  // namespace ecosim::gpu
