// transposed_copies: 2-D floating initializers of a table's size grouped by shape, each compared with those of
// the transposed shape element by element (most pairs differ at their first element), within a budget of
// compared elements.
#include "onnx_tied.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace ecosim::onnx_import {

namespace {

/// A tied table is large (a vocabulary's rows): smaller initializers are not compared.
constexpr std::uint64_t kMinTableElements = 4096;
/// Elements compared in all, at most (a hostile file of many look-alike tensors stays linear in its size).
constexpr std::uint64_t kMaxComparedElements = std::uint64_t{1} << 28;

std::size_t element_bytes(int data_type) {
  using T = onnx::TensorProto;
  switch (data_type) {
    case T::FLOAT: return 4;
    case T::FLOAT16:
    case T::BFLOAT16: return 2;
    case T::DOUBLE: return 8;
    default: return 0;
  }
}

/// Whether `b` (cols × rows) holds `a` (rows × cols) transposed, with some two elements of `a` differing;
/// `budget` is the elements left to compare (each compared one spends one).
bool transposed_equal(std::string_view a, std::string_view b, std::uint64_t rows, std::uint64_t cols, std::size_t bytes,
                      std::uint64_t& budget) {
  bool varied = false;
  for (std::uint64_t i = 0; i < rows; ++i)
    for (std::uint64_t j = 0; j < cols; ++j) {
      if (budget == 0) return false;
      --budget;
      const char* x = a.data() + (i * cols + j) * bytes;
      if (std::memcmp(x, b.data() + (j * rows + i) * bytes, bytes) != 0) return false;
      varied = varied || std::memcmp(x, a.data(), bytes) != 0;
    }
  return varied;
}

}  // namespace

std::map<std::string, std::string> transposed_copies(const onnx::GraphProto& g) {
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::vector<const onnx::TensorProto*>> by_shape;
  for (const onnx::TensorProto& t : g.initializer()) {
    const std::size_t bytes = element_bytes(t.data_type());
    if (bytes == 0 || t.dims_size() != 2 || t.dims(0) <= 0 || t.dims(1) <= 0 || !t.has_raw_data()) continue;
    const auto rows = static_cast<std::uint64_t>(t.dims(0)), cols = static_cast<std::uint64_t>(t.dims(1));
    std::uint64_t stored = 0;
    if (__builtin_mul_overflow(rows, cols, &stored) || stored < kMinTableElements ||
        __builtin_mul_overflow(stored, bytes, &stored) || t.raw_data().size() != stored)
      continue;
    by_shape[{rows, cols}].push_back(&t);
  }
  std::map<std::string, std::string> copies;
  std::uint64_t budget = kMaxComparedElements;
  for (const auto& [shape, tensors] : by_shape) {
    const auto transposed = by_shape.find({shape.second, shape.first});
    if (transposed == by_shape.end()) continue;
    for (const onnx::TensorProto* source : tensors)
      for (const onnx::TensorProto* copy : transposed->second)
        if (copy != source && source->data_type() == copy->data_type() && !copies.contains(source->name()) &&
            !copies.contains(copy->name()) &&
            transposed_equal(source->raw_data(), copy->raw_data(), shape.first, shape.second,
                             element_bytes(source->data_type()), budget))
          copies[copy->name()] = source->name();
  }
  return copies;
}

}  // namespace ecosim::onnx_import
