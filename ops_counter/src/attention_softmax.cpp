// Op counts of softmax attention: MSA (keys = all N tokens), SRA (keys = the reduced token grid, reduced in
// the projections), LSA (attention within each window of the zero-padded grid) and Linformer (keys and values projected along the sequence to k rows by one matrix E
// shared by K and V, and by every head and batch entry).
#include <array>

#include "attention_emitter.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::detail {

void emit_softmax_attention(const AttentionConfig& c, const AttentionEmitter& emit) {
  std::uint64_t g = checked_mul(c.batch, c.heads), n = c.seq;
  const std::uint64_t d = c.head_dim;
  if (c.variant == AttentionVariant::lsa) {  // every window an independent attention of window² tokens
    g = checked_mul(g, lsa_windows(c));
    n = c.window * c.window;
  }
  std::uint64_t keys = c.variant == AttentionVariant::sra ? sra_keys(c) : n;
  if (c.variant == AttentionVariant::linformer) {
    keys = c.proj_k;
    // (E·K)ᵀ = Kᵀ·Eᵀ: d×n times n×k, with Eᵀ shared by every (batch, head)
    const ops::GemmShape proj{.batch = g, .m = d, .n = keys, .k = n, .b_shared = true};
    emit(ops::gemm("k_proj", proj), ops::macs(checked_product({g, d, keys, n})));
    emit(ops::gemm("v_proj", proj), ops::macs(checked_product({g, d, keys, n})));
  }
  const std::uint64_t pairs = checked_product({g, n, keys});
  std::array<OpRecord, 4> core = {ops::gemm("scores", {.batch = g, .m = n, .n = keys, .k = d}),
                                  ops::eltwise("scale", "scale", g, n, keys, DType::fp32, {.mul = 1}),
                                  ops::softmax("softmax", g, n, keys),
                                  ops::gemm("context", {.batch = g, .m = n, .n = d, .k = keys})};
  ops::join_group(core, ops::kSoftmaxAttentionGroup);
  const std::array<OpCounts, 4> paper = {ops::macs(checked_mul(pairs, d)), muls(pairs), {},
                                         ops::macs(checked_mul(pairs, d))};
  for (std::size_t i = 0; i < core.size(); ++i) emit(std::move(core[i]), paper[i]);
}

}  // namespace ecosim::detail
