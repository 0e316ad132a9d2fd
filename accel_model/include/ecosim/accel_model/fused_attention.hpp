// FlashAttention-style mapping of softmax attention onto the accelerator: four consecutive records of one
// fusion group (OpRecord::group; the op counter and the MSA/Linformer/SRA/LSA kernels put scores, scale,
// softmax and context of each attention in `<p>.softmax_attention`, Reformer's per chunk shape in
// `<p>.chunk_attention[.i]`) become one op, named after the group, whose score tiles never leave the chip.
// Per (batch·head, query tile of tq rows, key tile of tk keys): the array computes S = Q·Kᵀ into the outputs
// buffer, the vector unit scales it and updates the running softmax (max, exp, sum; rescaling the partial
// context when the max grows), writing P to the inputs buffer, and the array accumulates P·V into the output
// rows. Two loop orders (FusedOrder) decide what stays on chip; the mapper (choose_fused_tiling) picks the
// order and tiles of least energy, and PlanSource runs a group unfused where its fused schedule would move
// more DRAM bits than its four ops. A causal group visits only the tiles holding an attended pair.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/ops_counter/checked.hpp"

namespace ecosim::accel {

/// Records in one group, at most: scores, up to three elementwise ops on the scores (the scale, a mask, a bias; an
/// imported model's in its order, none where it scaled the queries before), softmax, context.
inline constexpr std::size_t kMaxAttentionGroupRecords = 6;

/// The records of the group ops[0] starts: ops[0] and the records after it with its group name (0: no group).
std::size_t group_records(std::span<const OpRecord> ops);

/// One attention group: G independent softmax attentions of `queries` positions over `keys` keys of width
/// `dim`, operands of `operand_bits`; `causal` (the records' params.causal): position i attends to the first
/// keys − queries + i + 1 keys only. `heads` query heads share each of the G keys and values (grouped-query
/// attention: G = batch·K/V heads, from a causal group's params.kv_groups; 1 otherwise, G = batch·heads): the
/// query rows are stacked position-major (row r = position r / heads, head r % heads; query_rows() of them),
/// query tiles are tiles of rows, and each K and V tile serves every head of its group.
struct AttentionShape {
  std::uint64_t groups = 1, queries = 1, keys = 1, dim = 1;
  unsigned operand_bits = 8;
  bool causal = false;
  std::uint64_t window = 0;  // causal sliding window: each query over the W keys ending at it (0: all before it)
  std::uint64_t heads = 1;
  std::uint64_t query_rows() const { return checked_mul(queries, heads); }
  friend bool operator==(const AttentionShape&, const AttentionShape&) = default;
};

/// The loop inside batch·heads, outermost first:
/// * queries_outer (FlashAttention-2): a Q tile and its output rows (with the running max and sum) stay on
///   chip while K and V tiles stream past; K and V are read once per query tile (once when one tile holds
///   every key).
/// * keys_outer (FlashAttention-1): a K and V tile stay on chip while the query tiles stream past; each query
///   tile's partial output rows, max and sum (at accumulator width) are stored after every key tile but the
///   last and loaded again before the next, and Q is read once per key tile (once each when one tile holds
///   every query: then nothing partial leaves the chip).
/// Causal, each visits only the tiles with an attended pair: queries_outer per query tile its key tiles up to
/// the last attended (key_tiles_visited), keys_outer per key tile the query tiles from the first attending to it
/// (first_query_tile) on.
enum class FusedOrder : std::uint8_t { queries_outer, keys_outer };

struct FusedTiling {
  FusedOrder order = FusedOrder::queries_outer;
  std::uint64_t tq = 1, tk = 1;
  std::uint64_t dram_bits = 0;        // exact: fused_dram_bits
  std::uint64_t pipeline_cycles = 0;  // the closed form of its tile sequence (as the replay runs it)
  double energy_pj = 0;               // the same, energy (leakage included)
  std::string describe() const;
};

/// Whether tiles of tq query rows × tk keys fit half of each buffer: the K and V tiles in the weights
/// buffer; the Q and P tiles in the inputs buffer; the scores, the output rows and each row's running max and sum
/// at accumulator width in the outputs buffer (the same in both orders).
bool fused_tiles_fit(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk, const AccelConfig& config);

/// The key tiles (of tk keys) query tile qi (of tq rows) visits, 0 to the result: all ⌈keys/tk⌉, or when causal
/// those up to its last row's last attended key.
std::uint64_t key_tiles_visited(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk, std::uint64_t qi);
/// The first query tile visiting key tile ki (it and every later query tile do): 0, or when causal the tile
/// of the first row attending to the key tile's first key (ki < key_tiles_visited(qi) ⟺ qi ≥ the result).
std::uint64_t first_query_tile(const AttentionShape& s, std::uint64_t tq, std::uint64_t tk, std::uint64_t ki);
/// The (query row, key) pairs attended in the tile of query rows [q0, q0 + rows) × keys [k0, k0 + cols): all, or
/// when causal those with key < keys − queries + position + 1 (position = row / heads).
std::uint64_t attended_in_tile(const AttentionShape& s, std::uint64_t q0, std::uint64_t rows, std::uint64_t k0,
                               std::uint64_t cols);

/// DRAM bits of a tiling, per group (× G), over the tiles visited (all, or the causal ones), an operand tile
/// loaded only when the visited tile before used another one: Q and O (operand width) once, K and V once —
/// except that queries_outer reads each query tile's key tiles (K and V) per query tile unless the query tile
/// before used key tile 0 only (as every one does when one tile holds every key), and keys_outer reads each key
/// tile's query tiles (Q) per key tile and stores and loads back each query tile's partial output rows, max and
/// sum (d + 2 values at accumulator width) between its key tiles, except the last query tile's while one key
/// tile after another visits it alone (as it does when one tile holds every query).
std::uint64_t fused_dram_bits(const AttentionShape& s, FusedOrder order, std::uint64_t tq, std::uint64_t tk,
                              const AccelConfig& config);

/// The attention at ops[0]: when ops[0] starts a group (group_records: a record after it, if given, is in
/// another group) of kinds gemm, 0 to 3 eltwise, reduce, gemm with consistent shapes (G groups, queries, keys,
/// dim; each elementwise op over every score). nullopt otherwise: such records are planned one by one.
std::optional<AttentionShape> attention_group(std::span<const OpRecord> ops, const AccelConfig& config);

/// Bytes the elementwise ops of the attention group at ops[0] read beyond the scores: a mask's or a bias's operand
/// (an ONNX block's), which the fused mapping does not stream — such a group is planned unfused, saying so.
std::uint64_t score_operand_bytes(std::span<const OpRecord> ops);

/// The vector unit's work in a fused group with tiles of tq queries × tk keys: `records` (the elementwise ops'
/// and softmax's operations) plus the running softmax's, per query row and key tile its query tile visits after
/// the first: the old maximum's correction factor (1 subtraction, 1 exp) and the rescaled sum and output row
/// (d + 1 multiplications).
OpCounts fused_softmax_work(const OpCounts& records, const AttentionShape& s, std::uint64_t tq, std::uint64_t tk);

/// Over both orders, key tiles (powers of two, the largest that fits and the same trips balanced) and query
/// tiles likewise for each, the tilings that fit replayed by the closed form (stretch by stretch) from the least
/// lower bound of their energy (DRAM bits, softmax work, leakage while the DRAM moves) up, until a bound passes
/// the least energy found (a tiling left out cannot win): the least energy (leakage included; DRAM's 15 pJ/bit
/// dominates it), ties (1e-9,
/// rounding) by fewer DRAM bits, fewer cycles, larger tiles, then the first enumerated. Not the fewest DRAM
/// bits outright: that takes tiles of one key, 1/32 of the array, at 2–3× the energy. nullopt when not even
/// 1×1 fits. `softmax` is the scale's and softmax's records' work (fused_softmax_work adds the rest).
std::optional<FusedTiling> choose_fused_tiling(const AttentionShape& s, const OpCounts& softmax,
                                               const AccelConfig& config, const TechTable& tech);

/// The tiles of a tiling (one run): per (group, outer tile, inner tile) visited a triple — scores on the array,
/// softmax on the vector unit (`vector`'s cycles and energy spread evenly over the triples), context on the
/// array — issued software-pipelined: S₀, then per triple j: Sⱼ₊₁ (when there is one, the softmax Pⱼ beside
/// it), Pⱼ, context j. An operand tile is loaded when the triple before used another one. Causal: a diagonal
/// tile (some of its pairs masked) is computed whole, its attended pairs (attended_in_tile) counted as MACs.
std::shared_ptr<const TileRun> fused_attention_tiles(const AttentionShape& s, const FusedTiling& tiling,
                                                     VectorWork vector, const AccelConfig& config);

/// The tilings choose_fused_tiling chose for the shapes (and softmax work) seen, for one configuration and
/// technology table (both must outlive it): models repeat their attention shapes, layer after layer. Bounded: a
/// replay's memory does not grow with the trace.
class FusedTilingMemo {
 public:
  static constexpr std::size_t kCapacity = 16;
  FusedTilingMemo(const AccelConfig& config, const TechTable& tech) : config_(config), tech_(tech) {}
  std::optional<FusedTiling> choose(const AttentionShape& s, const OpCounts& softmax);

 private:
  struct Chosen {
    AttentionShape shape;
    OpCounts softmax;
    std::optional<FusedTiling> tiling;
  };
  const AccelConfig& config_;
  const TechTable& tech_;
  std::vector<Chosen> chosen_;
  std::size_t next_ = 0;  // the entry replaced next once full
};

/// The fused plan of the group at ops[0] and its tiling (nullopt when there is none or no tile fits); the
/// tiling from `memo` (for `config` and `tech`) when given.
struct FusedPlan {
  OpPlan plan;
  FusedTiling tiling;
};
std::optional<FusedPlan> plan_fused_attention(std::span<const OpRecord> ops, const AccelConfig& config,
                                              const TechTable& tech, FusedTilingMemo* memo = nullptr);

}  // namespace ecosim::accel
