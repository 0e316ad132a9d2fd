// Builders of the primitive operations in the exact convention: each returns an OpRecord holding the
// operations the algorithm performs (formulas in ops_counter/README.md) and the bytes it must read and
// write once. The analytic counter and the instrumented kernels build their records with these.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ecosim/ops_counter/conv_shape.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::ops {

struct GemmShape {
  std::uint64_t batch = 1, m = 1, n = 1, k = 1;
  DType a = DType::fp32, b = DType::fp32, out = DType::fp32;
  bool bias = false;      // one add per output element
  bool b_shared = false;  // B (weights) is the same for every batch entry: read once
};

/// C = A·B: batch·m·n·k multiplications, batch·m·n·(k−1) additions (+ bias).
OpRecord gemm(std::string name, const GemmShape& s);

/// C = H·B with H ∈ {−1,+1}^{m×k} packed as bits: batch·m·n·(k−1) additions/subtractions, no multiplications.
OpRecord popcount_accumulate(std::string name, const GemmShape& s);

/// A direct convolution (validated): per output element (C/groups)·R·S multiplications and one addition fewer
/// (+ bias); bytes: the input, the weights (and bias) and the output once each.
OpRecord conv(std::string name, const ConvShape& s, bool bias, DType t = DType::fp32);

/// Counts of one operation mix applied `times` times (per element or per row).
struct OpMix {
  std::uint64_t mul = 0, add = 0, cmp = 0, exp = 0, div = 0, sqrt = 0, popcount = 0;
};
OpCounts scaled(const OpMix& mix, std::uint64_t times, DType t);

/// Elementwise op over batch·m·n elements with `per_element` operations each; `inputs` operands read.
OpRecord eltwise(std::string name, std::string func, std::uint64_t batch, std::uint64_t m, std::uint64_t n, DType t,
                 const OpMix& per_element, unsigned inputs = 1);

/// Row-wise op over batch·rows rows of `len` elements, writing `out_per_row` elements per row; it reads
/// `read_elements` elements (0: batch·rows·len — windows that overlap, a pool's of stride below its kernel, read
/// their input once).
OpRecord reduce(std::string name, std::string func, std::uint64_t batch, std::uint64_t rows, std::uint64_t len, DType t,
                const OpMix& per_row, std::uint64_t out_per_row, std::uint64_t read_elements = 0);

/// Data movement of batch·m·n elements (gathers, scatters, copies): bytes only, no arithmetic.
OpRecord memcpy(std::string name, std::uint64_t batch, std::uint64_t m, std::uint64_t n, DType t);

// Standard row operations (per row of length L): formulas in ops_counter/README.md.
OpMix softmax_row(std::uint64_t len);                        // max, subtract, exp, sum, one reciprocal, L multiplies
OpMix layernorm_row(std::uint64_t len, bool affine = true);  // mean, variance, rsqrt, normalise, affine
OpMix rmsnorm_row(std::uint64_t len);                        // mean square, rsqrt, normalise, scale
OpMix l2_normalize_row(std::uint64_t len);                   // x / max(‖x‖, eps): never divides by zero
OpMix sum_row(std::uint64_t len);                            // L−1 additions
OpMix gelu_element();                                        // tanh form
OpMix relu_element();
OpMix silu_element();    // x / (1 + exp(−x))
OpMix rotary_element();  // one rotated output, x₁·cos ∓ x₂·sin

OpRecord softmax(std::string name, std::uint64_t batch, std::uint64_t rows, std::uint64_t len, DType t = DType::fp32);
OpRecord l2_normalize(std::string name, std::uint64_t batch, std::uint64_t rows, std::uint64_t len,
                      DType t = DType::fp32);

/// Fusion groups (OpRecord::group, before the layer prefix): the scores, scale, softmax and context records of
/// one softmax attention; Reformer's four chunk records per chunk shape (with several shapes, suffix ".<i>").
inline constexpr std::string_view kSoftmaxAttentionGroup = "softmax_attention";
inline constexpr std::string_view kChunkAttentionGroup = "chunk_attention";
/// The func of Reformer's chunk softmax: max, subtract, exp and sum, its normalisation left until the hash rounds
/// are combined (a softmax as a fused kernel runs it).
inline constexpr std::string_view kUnnormalisedSoftmaxFunc = "softmax_unnormalised";
/// OpRecord::params key marking a causal softmax attention's four records (value 1): their shapes are the
/// queries × keys rectangle, their counts those of the attended pairs only (query i of N over Nk keys sees the
/// first Nk − N + i + 1).
inline constexpr std::string_view kCausalParam = "causal";
/// OpRecord::params key of a causal sliding-window attention's four records (beside kCausalParam): W, each query
/// over the W keys ending at it (set where W is below the keys, so the band is narrower than the triangle).
inline constexpr std::string_view kWindowParam = "window";
/// OpRecord::params key of a causal grouped-query attention's four records (beside kCausalParam): the batch's K/V
/// heads, fewer than the records' batch·heads and dividing it (each product keeps its query head's own rows, since
/// the rows of a group attend different keys; K and V are read once per K/V head).
inline constexpr std::string_view kKvGroupsParam = "kv_groups";
/// OpRecord::params key of a grouped-query attention's four records whose products stack, as their rows, the G query
/// heads sharing one K/V head (FlashAttention's packing; every row attends all the record's keys: a decode step, or
/// no mask): G, dividing the records' m. Each batch entry is one K/V head; m / G the queries of each head.
inline constexpr std::string_view kPackedHeadsParam = "packed_heads";
/// OpRecord::params key of a record whose work is done in that many sequential passes (Layer::passes: a decoder's
/// decode steps; Mesa's min/max pass before its quantizing pass), each a kernel of its own on a GPU; a GEMM's batch
/// holds the passes (its weights read each).
inline constexpr std::string_view kPassesParam = "passes";
/// OpRecord::params key (1) of the GEMM and col2im sums a convolution is written as where it is no conv record (a
/// transposed convolution, a convolution's weight and input gradients): a GPU library runs them as cuDNN
/// convolutions (TF32 under PyTorch's fp32 default, the overlapping sums inside the kernel, no pass of their own).
inline constexpr std::string_view kConvolutionParam = "convolution";
/// OpRecord::params keys that describe a record and that no cost reads: a rotary embedding's rotated dims, a
/// pooling window's kernel, stride and padding, Few-Bit's code bits, a compression pass's metadata groups and
/// their size (ActNN) or heads (Mesa).
inline constexpr std::string_view kRotaryDimsParam = "rotary_dims";
inline constexpr std::string_view kPoolKernelParam = "kernel";
inline constexpr std::string_view kPoolStrideParam = "stride";
inline constexpr std::string_view kPoolPadParam = "pad";
inline constexpr std::string_view kCodeBitsParam = "bits";
inline constexpr std::string_view kGroupsParam = "groups";
inline constexpr std::string_view kGroupSizeParam = "group_size";
inline constexpr std::string_view kHeadsParam = "heads";
/// Every OpRecord::params key a record other than a conv record (whose params are its geometry, conv_shape.hpp)
/// may carry; a trace's reader refuses any other (a misspelt marker would be read as none, silently).
inline constexpr std::string_view kRecordParams[] = {
    kCausalParam,      kWindowParam,     kKvGroupsParam,   kPackedHeadsParam, kPassesParam,
    kConvolutionParam, kRotaryDimsParam, kPoolKernelParam, kPoolStrideParam,  kPoolPadParam,
    kCodeBitsParam,    kGroupsParam,     kGroupSizeParam,  kHeadsParam};
/// r's outputs added onto a held state of `elements` values of type t (a causal linear attention's running sums
/// over the earlier tokens): one addition per element, and the state read.
void add_onto_state(OpRecord& r, DType t, std::uint64_t elements);
/// Puts `records` in fusion group `group`.
void join_group(std::span<OpRecord> records, std::string_view group);
/// r named "<prefix>.<name>", and its fusion group (if any) "<prefix>.<group>": how a layer names its records.
OpRecord prefixed(OpRecord r, std::string_view prefix);

/// A DMA transfer of `bytes` of type t between on-chip buffers and DRAM: a store writes them, a load reads them
/// (func "copy"; n the elements those bytes hold).
OpRecord dram_transfer(std::string name, DType t, std::uint64_t bytes, bool store);
/// `pass` with its arithmetic and no DRAM bytes: a pass working on a tensor on chip, fused with its producer or
/// consumer (a compression pass beside the layer it compresses for).
OpRecord on_chip(const OpRecord& pass);

/// `exact` under the given convention: under paper its operations are replaced by `paper` (bytes kept).
OpRecord in_convention(OpRecord exact, Convention convention, const OpCounts& paper);

/// Multiply–accumulate counts for the paper convention: n MACs = n multiplications + n additions.
OpCounts macs(std::uint64_t n, DType t = DType::fp32);
/// n fp32 multiplications, or n fp32 additions (the paper convention's scaling and summation terms).
OpCounts muls(std::uint64_t n);
OpCounts adds(std::uint64_t n);

}  // namespace ecosim::ops
