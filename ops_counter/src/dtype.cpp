// Parsing and storage size of DType.
#include "ecosim/ops_counter/dtype.hpp"

#include "ecosim/ops_counter/checked.hpp"

namespace ecosim {

std::optional<DType> parse_dtype(std::string_view text) {
  for (DType t : kAllDTypes)
    if (name(t) == text) return t;
  return std::nullopt;
}

std::uint64_t storage_bytes(DType t, std::uint64_t elements) {
  const std::uint64_t total_bits = checked_mul(elements, bits(t));
  return total_bits / 8 + (total_bits % 8 != 0);
}

}  // namespace ecosim
