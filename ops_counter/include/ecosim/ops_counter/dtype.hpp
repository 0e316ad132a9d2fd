// Data types that ops are counted by, with their storage width in bits and their names in traces and tables.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ecosim {

enum class DType : std::uint8_t { fp32, fp16, bf16, int32, int16, int8, int4, int2, binary };
inline constexpr std::size_t kDTypeCount = 9;
inline constexpr std::array<DType, kDTypeCount> kAllDTypes = {DType::fp32,  DType::fp16,  DType::bf16,
                                                              DType::int32, DType::int16, DType::int8,
                                                              DType::int4,  DType::int2,  DType::binary};

constexpr std::string_view name(DType t) {
  constexpr std::array<std::string_view, kDTypeCount> names = {"fp32", "fp16", "bf16", "int32", "int16",
                                                               "int8", "int4", "int2", "binary"};
  return names[static_cast<std::size_t>(t)];
}

constexpr unsigned bits(DType t) {
  constexpr std::array<unsigned, kDTypeCount> widths = {32, 16, 16, 32, 16, 8, 4, 2, 1};
  return widths[static_cast<std::size_t>(t)];
}

constexpr bool is_float(DType t) { return t == DType::fp32 || t == DType::fp16 || t == DType::bf16; }

std::optional<DType> parse_dtype(std::string_view text);

/// The type that labels packed b-bit codes in counts and traces: binary, int2, int4 for 1, 2, 4 bits, int8
/// otherwise (3-bit codes are counted in exact bytes by their producers and labelled as raw bytes).
constexpr DType code_dtype(unsigned code_bits) {
  return code_bits == 1 ? DType::binary : code_bits == 2 ? DType::int2 : code_bits == 4 ? DType::int4 : DType::int8;
}

/// Bytes that `elements` values of type t occupy when packed densely (rounded up to whole bytes).
std::uint64_t storage_bytes(DType t, std::uint64_t elements);

}  // namespace ecosim
