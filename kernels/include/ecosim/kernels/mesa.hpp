// Mesa activation compression (DESIGN §6): 8-bit codes with one (α, β) per head or channel group, from
// running estimates α ← λα + (1−λ)(max − min), β ← λβ + (1−λ)·min (λ = 0.9; the first step takes the
// current max − min and min exactly). code = clamp(⌊(x − β)·255/α⌉_stochastic, 0, 255): values outside the
// running range saturate at 0 or 255 (never wrap, unlike the reference code); α = 0 gives code 0 (x̂ = β).
// U has 16 random bits from Philox-4×32-10 keyed by the seed, counter (head segment, index/8).
// Dequantization: code·(α/255) + β. Element e of a tensor viewed as outer × heads × inner belongs to head
// (e / inner) mod heads, e.g. [batch, heads, N, N] attention maps or [tokens, groups, channels/group].
// Non-finite inputs and (α, β) overflowing fp32 throw ecosim::Error.
#pragma once
#include <cstdint>
#include <vector>

#include "ecosim/kernels/cuda_timing.hpp"
#include "ecosim/kernels/tensor_view.hpp"
#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::kernels::mesa {

inline constexpr float kMomentum = 0.9f;
inline constexpr std::uint64_t kCodeBytes = 1;              // one 8-bit code per element
inline constexpr std::uint64_t kMetadataBytesPerHead = 8;  // α and β, one fp32 each

/// Running (α, β) per head; empty until the first step.
struct State {
  std::vector<float> alpha, beta;
  bool initialized() const { return !alpha.empty(); }
};

struct Layout {
  std::uint64_t outer = 1, heads = 1, inner = 0;
  std::uint64_t elements() const;
  /// The bytes of a tensor compressed in this layout: its codes and one (α, β) per head.
  std::uint64_t storage_bytes() const;
  void check() const;  // throws ecosim::Error for a zero dimension or overflow
  /// check(), that x is a float tensor of elements() values and that `state`, once initialized, holds one
  /// (α, β) per head (the quantizers' argument check).
  void check(const TensorView& x, const State& state) const;
};

struct Compressed {
  Layout layout;
  std::vector<float> alpha, beta;   // the per-head scales the codes were made with (fp32 metadata)
  std::vector<std::uint8_t> codes;  // one byte per element, in input order
  std::uint64_t storage_bytes() const { return codes.size() + kMetadataBytesPerHead * alpha.size(); }
  /// Throws ecosim::Error unless the layout is valid, with one (α, β) per head and one code per element.
  void check() const;
};

/// One training step: updates `state` with this tensor's per-head min/max, then quantizes with it.
Compressed quantize_cpu(const TensorView& x, const Layout& layout, State& state, std::uint64_t seed,
                        OpSink* sink = nullptr);
std::vector<float> dequantize_cpu(const Compressed& c, OpSink* sink = nullptr);

/// CUDA: a min/max kernel (per-head atomics on order-preserving integer keys) and a quantize kernel that
/// updates (α, β) on the device — two launches, no host synchronisation between them; bit-identical to the CPU.
Compressed quantize_cuda(const TensorView& x, const Layout& layout, State& state, std::uint64_t seed,
                         OpSink* sink = nullptr);
std::vector<float> dequantize_cuda(const Compressed& c, OpSink* sink = nullptr);
CudaTiming time_cuda(const TensorView& x, const Layout& layout, const timing::Plan& plan);

OpRecord quantize_record(const Layout& layout, DType input);
OpRecord dequantize_record(const Layout& layout);

}  // namespace ecosim::kernels::mesa
