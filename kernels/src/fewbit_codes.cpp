// Few-Bit Backward data: the fp32 codebook and its kernel table, the code packing layout (see fewbit.hpp),
// and the host tensor the kernels return.
#include <string>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "fewbit_element.hpp"
#include "input_type.hpp"

namespace ecosim::kernels::fewbit {

namespace {
void check_bits(unsigned bits) {
  if (bits < 1 || bits > 4) throw Error("fewbit: bits must be 1..4, got " + std::to_string(bits));
}
}  // namespace

Codebook Codebook::from(const Quantizer& q) {
  Codebook c;
  c.activation = q.activation;
  c.bits = q.bits;
  c.absolute = spec(q.activation).even_derivative;
  c.borders.assign(q.borders.begin(), q.borders.end());
  c.levels.assign(q.levels.begin(), q.levels.end());
  return c;
}

std::uint32_t Codebook::code(float x) const { return detail::code_of(detail::make_table(*this), x); }

HostTensor::HostTensor(DType t, std::uint64_t n) : dtype(t), elements(n) {
  bytes.resize(checked_mul(n, static_cast<std::uint64_t>(bits(t) / 8)));
}

float HostTensor::at(std::uint64_t i) const { return quant::load(bytes.data(), input_type(dtype), i); }

std::uint64_t code_bytes(std::uint64_t elements, unsigned bits) {
  check_bits(bits);
  return elements / 8 * bits + (elements % 8 * bits + 7) / 8;  // no overflow for any element count
}

std::vector<std::uint8_t> pack_codes(std::span<const std::uint8_t> codes, unsigned bits) {
  std::vector<std::uint8_t> packed(code_bytes(codes.size(), bits), 0);
  for (std::uint64_t e = 0; e < codes.size(); ++e) {
    if (codes[e] >> bits)
      throw Error("fewbit: code " + std::to_string(codes[e]) + " does not fit in " + std::to_string(bits) + " bits");
    // A code may straddle two bytes: write its low part, then the rest into the next byte.
    const std::uint64_t bit = e * bits;
    const unsigned shift = static_cast<unsigned>(bit % 8);
    packed[bit / 8] |= static_cast<std::uint8_t>(codes[e] << shift);
    if (shift + bits > 8) packed[bit / 8 + 1] |= static_cast<std::uint8_t>(codes[e] >> (8 - shift));
  }
  return packed;
}

std::vector<std::uint8_t> unpack_codes(std::span<const std::uint8_t> packed, std::uint64_t elements, unsigned bits) {
  if (packed.size() != code_bytes(elements, bits))
    throw Error("fewbit: " + std::to_string(packed.size()) + " code bytes for " + std::to_string(elements) +
                " elements of " + std::to_string(bits) + " bits (expected " +
                std::to_string(code_bytes(elements, bits)) + ")");
  std::vector<std::uint8_t> codes(elements);
  for (std::uint64_t e = 0; e < elements; ++e) {
    const std::uint64_t bit = e * bits;
    const unsigned shift = static_cast<unsigned>(bit % 8);
    unsigned v = packed[bit / 8] >> shift;
    if (shift + bits > 8) v |= static_cast<unsigned>(packed[bit / 8 + 1]) << (8 - shift);
    codes[e] = static_cast<std::uint8_t>(v & ((1u << bits) - 1u));
  }
  return codes;
}

namespace detail {
Table make_table(const Codebook& c) {
  check_bits(c.bits);
  const std::size_t intervals = std::size_t{1} << c.bits;
  if (c.borders.size() != intervals - 1 || c.levels.size() != intervals)
    throw Error("fewbit: a " + std::to_string(c.bits) + "-bit codebook needs " + std::to_string(intervals - 1) +
                " borders and " + std::to_string(intervals) + " levels");
  Table t{};
  for (std::size_t k = 0; k + 1 < intervals; ++k) t.borders[k] = c.borders[k];
  for (std::size_t k = 0; k < intervals; ++k) t.levels[k] = c.levels[k];
  t.bits = c.bits;
  t.absolute = c.absolute;
  t.activation = c.activation;
  return t;
}
}  // namespace detail

}  // namespace ecosim::kernels::fewbit
