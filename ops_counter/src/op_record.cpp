// Names and parsing of Convention and OpClass.
#include "ecosim/ops_counter/op_record.hpp"

#include <array>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

std::string_view name(Convention c) { return c == Convention::paper ? "paper" : "exact"; }

Convention parse_convention(std::string_view text) {
  if (text == "paper") return Convention::paper;
  if (text == "exact") return Convention::exact;
  throw Error("unknown convention '" + std::string(text) + "' (valid: paper, exact)");
}

namespace {
constexpr std::array<std::string_view, 6> kOpClassNames = {"gemm", "popcount_accumulate", "eltwise", "reduce", "memcpy",
                                                           "conv"};
}

std::string_view name(OpClass c) { return kOpClassNames[static_cast<std::size_t>(c)]; }

std::optional<OpClass> parse_op_class(std::string_view text) {
  for (std::size_t i = 0; i < kOpClassNames.size(); ++i)
    if (kOpClassNames[i] == text) return static_cast<OpClass>(i);
  return std::nullopt;
}

std::uint64_t OpRecord::param(std::string_view key) const {
  const auto it = params.find(std::string(key));
  return it == params.end() ? 0 : it->second;
}

}  // namespace ecosim
