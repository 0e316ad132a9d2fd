// PackedCodes: word storage chosen by the code width.
#include "ecosim/ecoformer/packed_codes.hpp"

#include <string>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::ecoformer {

PackedCodes::PackedCodes(std::uint64_t count, unsigned bits) : bits_(bits), count_(count) {
  if (bits < 1 || bits > 64) throw Error("hash code width b = " + std::to_string(bits) + " is outside 1..64");
  with_code_word(bits, [&](auto word) { words_ = std::vector<decltype(word)>(count, 0); });
}

std::uint64_t PackedCodes::word_bytes() const {
  return std::visit([](const auto& w) -> std::uint64_t { return sizeof(w[0]); }, words_);
}

std::uint64_t PackedCodes::word(std::uint64_t i) const {
  return std::visit([i](const auto& w) -> std::uint64_t { return w.at(i); }, words_);
}

void PackedCodes::set_word(std::uint64_t i, std::uint64_t value) {
  const std::uint64_t mask = bits_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits_) - 1;
  if (value & ~mask) throw Error("code word has bits set above b = " + std::to_string(bits_));
  std::visit([&](auto& w) { w.at(i) = static_cast<std::decay_t<decltype(w[0])>>(value); }, words_);
}

}  // namespace ecosim::ecoformer
