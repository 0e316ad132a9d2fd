// Binary hash codes h ∈ {−1,+1}^b stored packed, one word per token: uint16 for b ≤ 16, uint32 for b ≤ 32,
// uint64 for b ≤ 64. Bit r of a token's word is 1 when h_r = +1 and 0 when h_r = −1 (bits above b are 0),
// so h_i·h_j = b − 2·popcount(w_i XOR w_j) and a product h_r·x is x or −x selected by one bit.
#pragma once
#include <bit>
#include <cstdint>
#include <variant>
#include <vector>

namespace ecosim::ecoformer {

/// h_i·h_j of two b-bit codes from their packed words.
constexpr int code_dot(std::uint64_t a, std::uint64_t b, unsigned bits) {
  return static_cast<int>(bits) - 2 * std::popcount(a ^ b);
}

/// Calls f(Word{}) with the narrowest word type that holds `bits` (1..64) bits.
template <class F>
decltype(auto) with_code_word(unsigned bits, F&& f) {
  if (bits <= 16) return f(std::uint16_t{});
  if (bits <= 32) return f(std::uint32_t{});
  return f(std::uint64_t{});
}

class PackedCodes {
 public:
  PackedCodes() = default;
  /// `count` codes of `bits` (1..64) bits, all −1; throws ecosim::Error for bits outside 1..64.
  PackedCodes(std::uint64_t count, unsigned bits);

  unsigned bits() const { return bits_; }
  std::uint64_t size() const { return count_; }
  std::uint64_t word_bytes() const;
  std::uint64_t word(std::uint64_t i) const;  // zero-extended
  void set_word(std::uint64_t i, std::uint64_t w);
  int sign(std::uint64_t i, unsigned r) const { return (word(i) >> r) & 1u ? 1 : -1; }

  /// The words themselves, for kernels templated on the word type (Word must match bits()).
  template <class Word>
  std::vector<Word>& words() {
    return std::get<std::vector<Word>>(words_);
  }
  template <class Word>
  const std::vector<Word>& words() const {
    return std::get<std::vector<Word>>(words_);
  }

 private:
  unsigned bits_ = 0;
  std::uint64_t count_ = 0;
  std::variant<std::vector<std::uint16_t>, std::vector<std::uint32_t>, std::vector<std::uint64_t>> words_;
};

}  // namespace ecosim::ecoformer
