// OpCounts: exact 64-bit counts of arithmetic operations and bytes moved, each broken down by data type.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "ecosim/ops_counter/dtype.hpp"

namespace ecosim {

enum class OpKind : std::uint8_t { mul, add, cmp, exp, div, sqrt, popcount };
inline constexpr std::size_t kOpKindCount = 7;
inline constexpr std::array<OpKind, kOpKindCount> kAllOpKinds = {
    OpKind::mul, OpKind::add, OpKind::cmp, OpKind::exp, OpKind::div, OpKind::sqrt, OpKind::popcount};

constexpr std::string_view name(OpKind k) {
  constexpr std::array<std::string_view, kOpKindCount> names = {"mul", "add", "cmp", "exp", "div", "sqrt", "popcount"};
  return names[static_cast<std::size_t>(k)];
}
std::optional<OpKind> parse_op_kind(std::string_view text);

class OpCounts {
 public:
  /// Adds n operations of kind k on type t; throws ecosim::Error on 64-bit overflow.
  OpCounts& add(OpKind k, DType t, std::uint64_t n);
  OpCounts& add_read_bytes(DType t, std::uint64_t n);
  OpCounts& add_written_bytes(DType t, std::uint64_t n);
  OpCounts& operator+=(const OpCounts& other);

  std::uint64_t ops(OpKind k, DType t) const { return ops_[idx(k)][idx(t)]; }
  std::uint64_t ops(OpKind k) const;  // summed over data types
  std::uint64_t read_bytes(DType t) const { return read_[idx(t)]; }
  std::uint64_t written_bytes(DType t) const { return written_[idx(t)]; }
  std::uint64_t read_bytes() const;
  std::uint64_t written_bytes() const;
  bool empty() const;
  /// The same bytes read and written with no operations (to attach another convention's op counts).
  OpCounts bytes_only() const;

  friend bool operator==(const OpCounts&, const OpCounts&) = default;

 private:
  static constexpr std::size_t idx(auto e) { return static_cast<std::size_t>(e); }
  std::array<std::array<std::uint64_t, kDTypeCount>, kOpKindCount> ops_{};
  std::array<std::uint64_t, kDTypeCount> read_{};
  std::array<std::uint64_t, kDTypeCount> written_{};
};

}  // namespace ecosim
