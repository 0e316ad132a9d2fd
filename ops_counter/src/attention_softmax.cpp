// Stages of softmax attention: MSA (keys = all N tokens), SRA (keys = the reduced token grid, reduced in
// the projections), LSA (attention within each window of the zero-padded grid) and Linformer (keys and
// values projected along the sequence to k rows by one matrix E shared by K and V, and by every head and
// batch entry); and their analytic counter.
#include <array>

#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::stages {

Stage linformer_projections(const AttentionConfig& c) {
  const std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq, d = c.head_dim, k = c.proj_k;
  // (E·K)ᵀ = Kᵀ·Eᵀ: d×n times n×k, with Eᵀ shared by every (batch, head)
  const ops::GemmShape proj{.batch = g, .m = d, .n = k, .k = n, .b_shared = true};
  const OpCounts paper = ops::macs(checked_product({g, d, k, n}));
  return {{ops::gemm("k_proj", proj), paper}, {ops::gemm("v_proj", proj), paper}};
}

Stage softmax_core(std::uint64_t g, std::uint64_t n, std::uint64_t keys, std::uint64_t d, DType input) {
  std::array<OpRecord, 4> core = {ops::gemm("scores", {.batch = g, .m = n, .n = keys, .k = d, .a = input, .b = input}),
                                  ops::eltwise("scale", "scale", g, n, keys, DType::fp32, {.mul = 1}),
                                  ops::softmax("softmax", g, n, keys),
                                  ops::gemm("context", {.batch = g, .m = n, .n = d, .k = keys, .b = input})};
  ops::join_group(core, ops::kSoftmaxAttentionGroup);
  const std::uint64_t pairs = checked_product({g, n, keys});
  const OpCounts products = ops::macs(checked_mul(pairs, d));
  return {{std::move(core[0]), products},
          {std::move(core[1]), ops::muls(pairs)},
          {std::move(core[2]), {}},
          {std::move(core[3]), products}};
}

Stage softmax_attention(const AttentionConfig& c, DType input) {
  std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq;
  if (c.variant == AttentionVariant::lsa) {  // every window an independent attention of window² tokens
    g = checked_mul(g, lsa_windows(c));
    n = c.window * c.window;
  }
  const std::uint64_t keys = c.variant == AttentionVariant::sra         ? sra_keys(c)
                             : c.variant == AttentionVariant::linformer ? c.proj_k
                                                                        : n;
  return softmax_core(g, n, keys, c.head_dim, input);
}

}  // namespace ecosim::stages

namespace ecosim::detail {

void emit_softmax_attention(const AttentionConfig& c, const AttentionEmitter& emit) {
  if (c.variant == AttentionVariant::linformer) emit(stages::linformer_projections(c));
  emit(stages::softmax_attention(c));
}

}  // namespace ecosim::detail
