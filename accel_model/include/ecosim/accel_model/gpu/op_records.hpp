// A list of operation records (a model's or a layer's trace) costed on a GPU by the GPU model's kernel classes,
// as two kinds of software: ecosim's own kernels as written (fp32 on CUDA cores, softmax attention as its fused
// online-softmax kernel) or the best library (softmax attention as the fastest of FlashAttention-2/3 and cuDNN in
// fp16, matmuls as bf16 tensor-core GEMMs). Element-wise, reduction and copy records are bandwidth-bound in both.
#pragma once
#include <string_view>
#include <vector>

#include "ecosim/accel_model/gpu/kernel_model.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::gpu {

enum class Software { ecosim_kernels, best_library };
std::string_view software_description(Software software);

/// The modelled latency of `ops` in sequence on `gpu`, each kernel with its launch.
double modelled_latency_s(const std::vector<OpRecord>& ops, const GpuSpec& gpu, Software software,
                          const KernelModel& model = KernelModel::builtin());

}  // namespace ecosim::gpu
