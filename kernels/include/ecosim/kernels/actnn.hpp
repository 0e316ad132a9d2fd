// ActNN activation compression (DESIGN §6): per-group stochastic quantization to b ∈ {1,2,4,8} bits with
// bf16 group metadata, optionally with per-sample bit widths, plus the greedy bit allocator.
//
// Layout of a compressed tensor viewed as `samples` × `sample_elements` (a uniform-bit tensor is one
// sample): each sample is cut into groups of 256 consecutive elements (its last group holds the remainder;
// nothing is padded in the input). Codes are a bit stream per sample, element e of the sample at bit
// e·b counted LSB-first within bytes (8/b elements per byte, so no code straddles a byte); sample s starts
// at byte `sample_byte_offset[s]` = Σ_{t<s} ⌈sample_elements·b_t / 8⌉, so every group's codes are contiguous.
// Metadata per group g (sample-major): zero[g] = group min rounded DOWN to bf16, range[g] = (max − zero)
// rounded UP to bf16 (zero + range ≥ max exactly), both stored as raw bf16 bits.
// Quantization: u = (x − zero)·(B / range) with B = 2^b − 1 (u = 0 when range = 0), code = ⌊u⌋ + [U < frac u]
// clamped to [0, B], U with 16 random bits from Philox-4×32-10 keyed by the seed, counter (sample, index/8)
// (one call serves 8 consecutive elements) — unbiased to 2^-16 of a step. Dequantization: code·(range/B) + zero.
// Non-finite inputs, empty tensors, bits ∉ {1,2,4,8} and ranges overflowing bf16 throw ecosim::Error.
#pragma once
#include <cstdint>
#include <vector>

#include "ecosim/kernels/cuda_timing.hpp"
#include "ecosim/kernels/tensor_view.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::kernels::actnn {

inline constexpr std::uint64_t kGroupSize = 256;
inline constexpr std::uint64_t kMetadataBytesPerGroup = 4;  // zero and range, one bf16 each

struct Layout {
  std::uint64_t samples = 1;
  std::uint64_t sample_elements = 0;
  std::vector<unsigned> bits;  // one per sample

  static Layout uniform(std::uint64_t elements, unsigned bits) { return {1, elements, {bits}}; }
  std::uint64_t elements() const;
  std::uint64_t groups_per_sample() const;
  std::uint64_t groups() const;
  /// samples + 1 byte offsets of each sample's codes (last = total code bytes).
  std::vector<std::uint64_t> sample_byte_offsets() const;
  /// The bytes of a tensor compressed in this layout: its codes and its groups' metadata.
  std::uint64_t storage_bytes() const;
  /// Throws ecosim::Error for zero sizes, a bits vector of the wrong length or bits ∉ {1,2,4,8}.
  void check() const;
  /// check(), and that x is a float tensor of elements() values (the quantizers' argument check).
  void check(const TensorView& x) const;
};

struct Compressed {
  Layout layout;
  std::vector<std::uint64_t> sample_byte_offset;     // samples + 1
  std::vector<std::uint16_t> zero_bf16, range_bf16;  // per group
  std::vector<std::uint8_t> codes;

  std::uint64_t storage_bytes() const;  // codes + metadata
  /// Throws ecosim::Error unless the layout is valid and the offsets, metadata and codes have its sizes.
  void check() const;
  /// Code of element `index` of sample `sample` (unpacked from the stream).
  std::uint32_t code(std::uint64_t sample, std::uint64_t index) const;
};

/// CPU reference. `sink` (optional) receives the op record of the quantize+pack pass.
Compressed quantize_cpu(const TensorView& x, const Layout& layout, std::uint64_t seed, OpSink* sink = nullptr);
std::vector<float> dequantize_cpu(const Compressed& c, OpSink* sink = nullptr);

/// CUDA kernels behind host-memory entry points — quantize+pack in a single pass with one warp per group
/// (8 groups per 256-thread block), unpack in the same layout (8 elements per thread); bit-identical to
/// the CPU reference. Throw ecosim::Error when built without CUDA or no GPU is present.
Compressed quantize_cuda(const TensorView& x, const Layout& layout, std::uint64_t seed, OpSink* sink = nullptr);
std::vector<float> dequantize_cuda(const Compressed& c, OpSink* sink = nullptr);
/// Benchmark: both kernels and a device copy of the input bytes on device-resident data.
CudaTiming time_cuda(const TensorView& x, const Layout& layout, const timing::Plan& plan);

/// Op records (what the kernels compute and the bytes they move, compressed vs raw storage).
OpRecord quantize_record(const Layout& layout, DType input);
OpRecord dequantize_record(const Layout& layout);

/// Per-element variance (range/B)²·f(1−f) of the dequantized value of every element, f = frac(u).
std::vector<double> element_variance(const TensorView& x, const Compressed& c);

/// Activation-only sensitivity of each sample of x (viewed as `samples` equal rows, each cut into groups
/// of 256): w_s = Σ_g n_g·R_g²/4, the bound Σ (R_g/B)²·f(1−f) ≤ w_s/B² on the sample's summed
/// quantization variance at B = 2^b − 1 levels. In training ActNN also weighs each sample by its gradient's
/// sensitivity, which a standalone compression cannot see. Throws ecosim::Error for non-finite inputs or a
/// size that is not a multiple of `samples`.
std::vector<double> range_weights(const TensorView& x, std::uint64_t samples);

/// Per-sample bits keeping Σ_s w_s / (2^{b_s} − 1)² low subject to Σ_s b_s ≤ budget_bits (average × samples),
/// greedily (ActNN's heuristic; the exact minimum is a knapsack): start at 8 bits everywhere and repeatedly lower
/// the sample whose next step down (8→4→2→1) adds the least weighted variance per bit saved (a min-heap), until
/// the budget holds — the last step may save more than needed, leaving bits of the budget unspent.
/// Throws ecosim::Error when budget_bits < samples (1 bit each is the floor) or a weight is negative/NaN.
std::vector<unsigned> allocate_bits(const std::vector<double>& weights, std::uint64_t budget_bits);

}  // namespace ecosim::kernels::actnn
