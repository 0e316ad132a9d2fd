// Operation records costed by the GPU model's kernel classes: softmax-attention fusion groups as fused
// attention, matmul-like records as GEMMs, the rest as bandwidth-bound kernels.
#include "ecosim/accel_model/gpu/op_records.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/primitives.hpp"

namespace ecosim::gpu {

namespace {

/// The attention shape of a softmax-attention group (its scores and context GEMMs and a softmax), if it is one.
std::optional<AttentionShape> attention_of(std::span<const OpRecord> group) {
  std::vector<const OpRecord*> gemms;
  bool softmax = false;
  for (const OpRecord& r : group) {
    if (r.kind == OpClass::gemm) gemms.push_back(&r);
    // (Reformer's chunk softmax too: its chunks are attentions a fused kernel runs, as ecosim's CUDA kernel does)
    softmax |= r.func == "softmax" || r.func == ops::kUnnormalisedSoftmaxFunc;
  }
  if (gemms.size() != 2 || !softmax) return std::nullopt;
  const OpRecord& scores = *gemms[0];  // batch·heads × (queries × keys), depth = head width
  AttentionShape s{.batch = scores.batch, .heads = 1, .seq = scores.m, .kv_seq = scores.n, .dim = scores.k};
  s.causal = scores.param(ops::kCausalParam) == 1;
  if (s.causal) s.window = scores.param(ops::kWindowParam);
  // grouped-query: the batch's K/V heads, each read by a group of query heads
  const std::uint64_t kv_groups = s.causal ? scores.param(ops::kKvGroupsParam) : 0;
  if (kv_groups && kv_groups < s.batch && s.batch % kv_groups == 0) {
    s.heads = s.batch / kv_groups;
    s.batch = kv_groups;
    s.kv_heads = 1;
  }
  // or each batch entry one K/V head whose query heads are stacked as the rows: the attention they are (each
  // implementation packs them again or not, as gpu-time's shape of it)
  if (const std::uint64_t packed = scores.param(ops::kPackedHeadsParam); packed > 1 && s.seq % packed == 0) {
    s.heads = packed;
    s.seq /= packed;
    s.kv_heads = 1;
  }
  return s;
}

/// The data type a matmul-like record runs in under `software`.
DType matmul_dtype(OpClass kind, Software software) {
  switch (software) {
    case Software::ecosim_kernels: return DType::fp32;
    case Software::best_library: return DType::bf16;
    case Software::pytorch_fp32: return kind == OpClass::conv ? DType::tf32 : DType::fp32;
    case Software::pytorch_amp: return DType::fp16;
  }
  return DType::fp32;
}

double fused_s(const AttentionShape& s, const GpuSpec& gpu, Software software, const KernelModel& model) {
  if (software == Software::ecosim_kernels) {  // as written: fp32 operands (matmul_dtype), its cache too
    AttentionShape fp32 = s;
    fp32.dtype = matmul_dtype(OpClass::gemm, software);
    return model.attention(gpu, AttentionImpl::ecosim, fp32).latency_s;
  }
  double best = std::numeric_limits<double>::infinity();
  for (AttentionImpl impl : {AttentionImpl::flash2, AttentionImpl::flash3, AttentionImpl::cudnn}) {
    if (impl == AttentionImpl::flash3 && !gpu.warpgroup_mma) continue;
    best = std::min(best, model.attention(gpu, impl, s).latency_s);
  }
  return best;
}

bool pytorch(Software software) { return software == Software::pytorch_fp32 || software == Software::pytorch_amp; }

/// A record's kernel time; a record of several sequential passes (params.passes: decode steps) is a kernel a
/// pass, each with its share of the work (a GEMM's batch holds the passes).
double record_s(const OpRecord& r, const GpuSpec& gpu, Software software, const KernelModel& model) {
  const std::uint64_t passes = std::max<std::uint64_t>(1, r.param(ops::kPassesParam));
  double kernel_s = 0;
  switch (r.kind) {
    case OpClass::gemm:
    case OpClass::popcount_accumulate:
    case OpClass::conv: {
      if (r.batch % passes) throw Error("record '" + r.name + "': its batch does not hold its passes");
      // a convolution written as a GEMM (ops::kConvolutionParam) runs as one: cuDNN's precision
      const OpClass as = r.param(ops::kConvolutionParam) ? OpClass::conv : r.kind;
      kernel_s = model.gemm(gpu, {r.m, r.n, r.k, r.batch / passes, matmul_dtype(as, software)}).latency_s;
      break;
    }
    case OpClass::eltwise:
      if (r.param(ops::kConvolutionParam)) break;  // a convolution's col2im sums: inside cuDNN's kernel
      [[fallthrough]];
    case OpClass::reduce:
    case OpClass::memcpy:
      kernel_s = model
                     .streaming_kernel(
                         gpu, (double(r.counts.read_bytes()) + double(r.counts.written_bytes())) / double(passes))
                     .latency_s;
      break;
  }
  return kernel_s * double(passes);
}

}  // namespace

std::string_view software_description(Software software) {
  switch (software) {
    case Software::ecosim_kernels:
      return "ecosim's kernels as written (fp32 CUDA cores; softmax attention fused online)";
    case Software::best_library:
      return "best library (FlashAttention-2/3 or cuDNN fp16 attention, bf16 tensor-core GEMMs)";
    case Software::pytorch_fp32:
      return "PyTorch eager (fp32 GEMMs, TF32 convolutions, attention unfused; no faster than its ops' dispatch)";
    case Software::pytorch_amp:
      return "PyTorch eager under autocast (fp16 GEMMs and convolutions, attention unfused; no faster than its ops' "
             "dispatch)";
  }
  return "";
}

ModelledLatency modelled_latency(const std::vector<OpRecord>& ops, const GpuSpec& gpu, Software software,
                                 const KernelModel& model) {
  ModelledLatency out;
  for (std::size_t i = 0; i < ops.size();) {
    std::size_t end = i + 1;
    if (!ops[i].group.empty())
      while (end < ops.size() && ops[end].group == ops[i].group) ++end;
    const std::span<const OpRecord> group(ops.data() + i, end - i);
    std::optional<double> fused;
    if (const auto shape = pytorch(software) ? std::nullopt : attention_of(group)) {
      try {
        fused = fused_s(*shape, gpu, software, model);
      } catch (const Error& e) {  // a shape the fused kernels do not take: its records one by one, and why
        if (std::find(out.op_by_op.begin(), out.op_by_op.end(), e.what()) == out.op_by_op.end())
          out.op_by_op.emplace_back(e.what());
      }
    }
    if (fused) {
      out.seconds += *fused;
    } else {
      for (const OpRecord& r : group) out.seconds += record_s(r, gpu, software, model);
    }
    i = end;
  }
  // PyTorch eager: the CPU dispatches op after op ahead of the GPU, so the step takes the longer of the two
  if (pytorch(software))
    out.seconds = std::max(out.seconds, double(ops.size()) * model.value("pytorch_op_dispatch_us") * 1e-6);
  return out;
}

double modelled_latency_s(const std::vector<OpRecord>& ops, const GpuSpec& gpu, Software software,
                          const KernelModel& model) {
  return modelled_latency(ops, gpu, software, model).seconds;
}

}  // namespace ecosim::gpu
