// Internal (CUDA sources of the compression kernels): the per-launch flags that kernels raise for bad input, thrown
// with the CPU reference's messages, warp/block min-max reductions, the input type as a template parameter
// (dispatched once on the host), fp16 by the hardware conversions and 8-element vector loads/stores with a scalar
// fallback. The GPU support layer they build on is ecosim/kernels/cuda_support.cuh.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "ecosim/kernels/cuda_support.cuh"
#include "ecosim/ops_counter/error.hpp"
#include "input_errors.hpp"
#include "quant_math.hpp"

namespace ecosim::cuda {

/// First bad element / group a kernel found (UINT64_MAX = none); kernels lower it with atomicMin.
struct Flags {
  unsigned long long bad_element, bad_group;
};
inline constexpr unsigned long long kNone = ~0ull;

inline DeviceBuffer<Flags> make_flags() {
  const Flags none{kNone, kNone};
  return DeviceBuffer<Flags>(&none, 1);
}

/// Throws the CPU reference's error for the flags a launch raised: a non-finite element, or the scheme's own
/// overflow of a group's scale (`group_overflow`: ActNN's bf16 metadata, Mesa's fp32 head scale; nullptr for
/// a scheme whose kernels never raise it).
inline void throw_flags(const DeviceBuffer<Flags>& flags, const char* scheme,
                        Error (*group_overflow)(std::uint64_t) = nullptr) {
  const Flags f = flags.download()[0];
  if (f.bad_element != kNone) throw kernels::non_finite_input(scheme, f.bad_element);
  if (f.bad_group != kNone) {
    if (group_overflow) throw group_overflow(f.bad_group);
    throw Error(std::string(scheme) + ": internal error: group " + std::to_string(f.bad_group) + " flagged");
  }
}

/// Warp-wide min and max (every lane of the warp must call it); all lanes get the result.
__device__ inline void warp_min_max(float& lo, float& hi) {
  for (int offset = 16; offset > 0; offset /= 2) {
    lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, offset));
    hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, offset));
  }
}

/// Block-wide min and max of one value per thread (blockDim.x a multiple of 32, at most 1024).
__device__ inline void block_min_max(float& lo, float& hi) {
  __shared__ float warp_lo[32], warp_hi[32];
  warp_min_max(lo, hi);
  const unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
  if (threadIdx.x % 32 == 0) {
    warp_lo[warp] = lo;
    warp_hi[warp] = hi;
  }
  __syncthreads();
  lo = warp_lo[0];
  hi = warp_hi[0];
  for (unsigned w = 1; w < warps; ++w) {
    lo = fminf(lo, warp_lo[w]);
    hi = fmaxf(hi, warp_hi[w]);
  }
  __syncthreads();  // the shared arrays may be reused by a later call
}

/// An input type as a compile-time tag: the kernels are templates on it.
template <quant::Input T>
using InputTag = std::integral_constant<quant::Input, T>;

/// Calls f(InputTag<T>{}) for the runtime type: the one dispatch, on the host, per launch.
template <class F>
void with_input(quant::Input type, F&& f) {
  switch (type) {
    case quant::Input::fp16: f(InputTag<quant::Input::fp16>{}); break;
    case quant::Input::bf16: f(InputTag<quant::Input::bf16>{}); break;
    default: f(InputTag<quant::Input::fp32>{});
  }
}

/// Storage of one element of type T and its conversions: the same functions quant::load / quant::store call.
template <quant::Input T>
struct Element {
  using Bits = float;
  __device__ static float to_float(float v) { return v; }
  __device__ static float from_float(float v) { return v; }
};
/// fp16 by the conversion instructions: fp16 → fp32 is exact, and fp32 → fp16 rounds to nearest even with
/// overflow to ±Inf as quant::float_to_fp16 does; only a NaN takes the software path (its canonical bits).
template <>
struct Element<quant::Input::fp16> {
  using Bits = std::uint16_t;
  __device__ static float to_float(std::uint16_t h) { return __half2float(__ushort_as_half(h)); }
  __device__ static std::uint16_t from_float(float v) {
    return v != v ? quant::float_to_fp16(v) : __half_as_ushort(__float2half_rn(v));
  }
};
template <>
struct Element<quant::Input::bf16> {
  using Bits = std::uint16_t;
  __device__ static float to_float(std::uint16_t h) { return quant::bf16_to_float(h); }
  __device__ static std::uint16_t from_float(float v) { return quant::float_to_bf16(v); }
};

__device__ inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

/// v[j] = element first + j of `data` for j < valid (≤ 8), 0 after: 16-byte vector loads when all 8 are
/// valid and the address is 16-byte aligned (checked here, so any offset is safe), else element by element.
template <quant::Input T>
__device__ inline void load8(const void* data, std::uint64_t first, unsigned valid, float (&v)[8]) {
  using E = Element<T>;
  const typename E::Bits* p = static_cast<const typename E::Bits*>(data) + first;
  if (valid == 8 && aligned16(p)) {
    if constexpr (T == quant::Input::fp32) {
      const float4 a = reinterpret_cast<const float4*>(p)[0], b = reinterpret_cast<const float4*>(p)[1];
      v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
    } else {
      const uint4 w = *reinterpret_cast<const uint4*>(p);  // element 2k in the low half of word k
      const std::uint32_t words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
      for (unsigned k = 0; k < 4; ++k) {
        v[2 * k] = E::to_float(static_cast<std::uint16_t>(words[k] & 0xffffu));
        v[2 * k + 1] = E::to_float(static_cast<std::uint16_t>(words[k] >> 16));
      }
    }
    return;
  }
#pragma unroll
  for (unsigned j = 0; j < 8; ++j) v[j] = j < valid ? E::to_float(p[j]) : 0.0f;
}

/// Element first + j of `data` = v[j] for j < valid (≤ 8), converted to T: vector stores as in load8.
template <quant::Input T>
__device__ inline void store8(void* data, std::uint64_t first, unsigned valid, const float (&v)[8]) {
  using E = Element<T>;
  typename E::Bits* p = static_cast<typename E::Bits*>(data) + first;
  if (valid == 8 && aligned16(p)) {
    if constexpr (T == quant::Input::fp32) {
      reinterpret_cast<float4*>(p)[0] = make_float4(v[0], v[1], v[2], v[3]);
      reinterpret_cast<float4*>(p)[1] = make_float4(v[4], v[5], v[6], v[7]);
    } else {
      std::uint32_t words[4];
#pragma unroll
      for (unsigned k = 0; k < 4; ++k)
        words[k] = static_cast<std::uint32_t>(E::from_float(v[2 * k])) |
                   (static_cast<std::uint32_t>(E::from_float(v[2 * k + 1])) << 16);
      *reinterpret_cast<uint4*>(p) = make_uint4(words[0], words[1], words[2], words[3]);
    }
    return;
  }
#pragma unroll
  for (unsigned j = 0; j < 8; ++j)
    if (j < valid) p[j] = E::from_float(v[j]);
}

/// The `bytes` (≤ 8) bytes at p as a little-endian word: one load when bytes is 2, 4 or 8 and p is aligned
/// to it, else byte by byte.
__device__ inline std::uint64_t load_bytes(const std::uint8_t* p, unsigned bytes) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  if (bytes == 8 && a % 8 == 0) return *reinterpret_cast<const std::uint64_t*>(p);
  if (bytes == 4 && a % 4 == 0) return *reinterpret_cast<const std::uint32_t*>(p);
  if (bytes == 2 && a % 2 == 0) return *reinterpret_cast<const std::uint16_t*>(p);
  std::uint64_t word = 0;
  for (unsigned k = 0; k < bytes; ++k) word |= static_cast<std::uint64_t>(p[k]) << (8 * k);
  return word;
}

/// The low `bytes` (≤ 8) bytes of `word` to p, little-endian; one store where load_bytes makes one load.
__device__ inline void store_bytes(std::uint8_t* p, std::uint64_t word, unsigned bytes) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  if (bytes == 8 && a % 8 == 0) {
    *reinterpret_cast<std::uint64_t*>(p) = word;
  } else if (bytes == 4 && a % 4 == 0) {
    *reinterpret_cast<std::uint32_t*>(p) = static_cast<std::uint32_t>(word);
  } else if (bytes == 2 && a % 2 == 0) {
    *reinterpret_cast<std::uint16_t*>(p) = static_cast<std::uint16_t>(word);
  } else {
    for (unsigned k = 0; k < bytes; ++k) p[k] = static_cast<std::uint8_t>(word >> (8 * k));
  }
}

}  // namespace ecosim::cuda
