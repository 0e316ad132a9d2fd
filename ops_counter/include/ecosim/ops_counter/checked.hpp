// 64-bit arithmetic that throws ecosim::Error on overflow instead of wrapping (op counts grow as N²·D·layers).
#pragma once
#include <cstdint>
#include <initializer_list>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw Error("count overflows 64 bits (dimensions too large)");
  return r;
}

inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw Error("count overflows 64 bits (dimensions too large)");
  return r;
}

/// Product of all factors, checked.
inline std::uint64_t checked_product(std::initializer_list<std::uint64_t> factors) {
  std::uint64_t r = 1;
  for (auto f : factors) r = checked_mul(r, f);
  return r;
}

/// ⌈a / b⌉ (b > 0; never overflows).
inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

/// a - b for counts where b ≤ a is an invariant of the formula (e.g. K - 1 with K ≥ 1).
inline std::uint64_t checked_sub(std::uint64_t a, std::uint64_t b) {
  if (b > a) throw Error("negative count (a dimension is zero)");
  return a - b;
}

}  // namespace ecosim
