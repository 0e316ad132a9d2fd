// FlashAttention-style mapping of softmax attention onto the accelerator: four consecutive records of one
// fusion group (OpRecord::group; the op counter and the MSA/Linformer/SRA/LSA kernels put scores, scale,
// softmax and context of each attention in `<p>.softmax_attention`, Reformer's per chunk shape in
// `<p>.chunk_attention[.i]`) become one op, named after the group, whose score tiles never leave the chip.
// Per (batch·head, query tile of tq rows,
// key tile of tk keys): the array computes S = Q·Kᵀ into the outputs buffer, the vector unit scales it and
// updates the running softmax (max, exp, sum; rescaling the partial context when the max grows), writing
// P to the inputs buffer, and the array accumulates P·V into the resident output rows, stored once per
// query tile. DRAM carries Q and O once and K, V once per query tile, instead of the N×keys score matrix.
// A causal group (params.causal) skips the key tiles after each query tile's last attended key.
#pragma once
#include <cstdint>
#include <optional>
#include <span>

#include "ecosim/accel_model/op_plan.hpp"

namespace ecosim::accel {

/// Records in one group: scores, scale, softmax, context.
inline constexpr std::size_t kAttentionGroupRecords = 4;

/// One attention group: G = batch·heads independent softmax attentions of `queries` rows over `keys` keys
/// of width `dim`, operands of `operand_bits`; `causal` (the records' params.causal): query i attends to the
/// first keys − queries + i + 1 keys only.
struct AttentionShape {
  std::uint64_t groups = 1, queries = 1, keys = 1, dim = 1;
  unsigned operand_bits = 8;
  bool causal = false;
};

struct FusedTiling {
  std::uint64_t tq = 1, tk = 1;
  std::uint64_t dram_bits = 0;         // exact: G·(Q + O + Σ over query tiles of their key tiles' K + V) bits
  std::uint64_t estimated_cycles = 0;  // max(array + vector cycles, DRAM cycles)
};

/// Key tiles of tk keys that query tile `qi` (of tq rows) computes: all ⌈keys/tk⌉, or when causal those up to
/// its last row's last attended key (a tile wholly after it is skipped; the diagonal tiles are computed whole,
/// their masked scores discarded, and only their attended pairs count as MACs).
std::uint64_t key_tiles(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk, std::uint64_t qi);

/// The attention at ops[0]: when ops[0] starts a group of exactly kAttentionGroupRecords records (a record
/// after them, if given, is in another group) of kinds gemm, eltwise, reduce, gemm with consistent shapes (G
/// groups, queries, keys, dim). nullopt otherwise: such records are planned one by one.
std::optional<AttentionShape> attention_group(std::span<const OpRecord> ops, const AccelConfig& config);

/// Power-of-two tiles (tk keys and values resident in half the weights buffer; the Q and P tiles in half
/// the inputs buffer; scores and output rows at accumulator width in half the outputs buffer) with the
/// fewest estimated cycles, ties to larger tiles; nullopt when not even 1×1 fits.
std::optional<FusedTiling> choose_fused_tiling(const AttentionShape& s, const AccelConfig& config);

/// The fused plan of the group at ops[0] (nullopt when there is none or no tile fits): its tiles in order
/// (per query tile and key tile: scores on the array, softmax on the vector unit, context on the array; each
/// triple's scores issued before the previous triple's softmax, which may compute beside them).
std::optional<OpPlan> plan_fused_attention(std::span<const OpRecord> ops, const AccelConfig& config,
                                           const TechTable& tech);

}  // namespace ecosim::accel
