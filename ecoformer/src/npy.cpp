// Strict streaming reader of float .npy files (format versions 1.0, 2.0 and 3.0): magic, a header of at most
// 64 KiB holding a dict with exactly the keys descr, fortran_order and shape, then '<f4' or '<f2' data (or '<u2'
// as bfloat16 bits, where asked for) in C order whose byte count matches the shape, converted to float; files and bytes
// in memory go through the same std::istream code. The encoder writes version 1.0 with the header padded so the data
// starts on a 64-byte boundary, as numpy does.
#include "ecosim/ecoformer/npy.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <map>
#include <sstream>
#include <streambuf>

#include "ecosim/ecoformer/msa_fp16.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/input_files.hpp"

namespace ecosim::ecoformer {

namespace {

// numpy itself refuses headers above 10,000 bytes (max_header_size); a real header is well under 1 KiB.
constexpr std::uint64_t kMaxHeaderBytes = 65'536;

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  /// {'key': value, ...} → key → raw value text (a quoted string, True/False, or a tuple).
  std::map<std::string, std::string> dict() {
    expect('{');
    std::map<std::string, std::string> entries;
    while (skip_spaces(), peek() != '}') {
      const std::string key = quoted();
      expect(':');
      skip_spaces();
      std::string value;
      if (peek() == '\'') {
        value.append("'").append(quoted()).append("'");  // (not `"'" + …`: a false g++ 12 -Wrestrict)
      } else if (peek() == '(') {
        value = until(')') + ")";
        ++pos_;
      } else {
        value = word();
      }
      if (!entries.emplace(key, value).second) fail("key '" + key + "' appears twice");
      skip_spaces();
      if (peek() == ',')
        ++pos_;
      else if (peek() != '}')
        fail("expected ',' or '}' after the value of '" + key + "'");
    }
    ++pos_;
    skip_spaces();
    if (pos_ != text_.size()) fail("unexpected text after the header dict");
    return entries;
  }

  [[noreturn]] void fail(const std::string& what) const { throw Error(origin_ + ": malformed .npy header: " + what); }

 private:
  char peek() {
    if (pos_ >= text_.size()) fail("header ends early");
    return text_[pos_];
  }
  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  void expect(char c) {
    skip_spaces();
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string quoted() {
    expect('\'');
    const std::string s = until('\'');
    ++pos_;
    return s;
  }
  std::string until(char end) {
    const std::size_t close = text_.find(end, pos_);
    if (close == std::string_view::npos) fail(std::string("missing '") + end + "'");
    std::string s(text_.substr(pos_, close - pos_));
    pos_ = close;
    return s;
  }
  std::string word() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string_view text_;
  const std::string& origin_;
  std::size_t pos_ = 0;
};

std::vector<std::uint64_t> parse_shape(const std::string& tuple, const HeaderParser& parser) {
  if (tuple.size() < 2 || tuple.front() != '(' || tuple.back() != ')') parser.fail("shape is not a tuple");
  std::vector<std::uint64_t> shape;
  std::string item;
  std::stringstream items(tuple.substr(1, tuple.size() - 2));
  while (std::getline(items, item, ',')) {
    const std::size_t first = item.find_first_not_of(' '), last = item.find_last_not_of(' ');
    if (first == std::string::npos) {
      if (items.eof()) break;  // trailing comma of a 1-tuple: "(3,)"
      parser.fail("empty shape entry");
    }
    const std::string digits = item.substr(first, last - first + 1);
    if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
      parser.fail("shape entry '" + digits + "' is not a non-negative integer");
    shape.push_back(std::stoull(digits));
  }
  if (shape.empty()) parser.fail("0-dimensional arrays are not attention inputs");
  return shape;
}

std::uint32_t little_endian(std::string_view bytes) {
  std::uint32_t v = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

/// A read-only stream over bytes in memory (no copy).
class ViewBuffer : public std::streambuf {
 public:
  explicit ViewBuffer(std::string_view bytes) {
    char* begin = const_cast<char*>(bytes.data());  // only read: the get area is never written
    setg(begin, begin, begin + bytes.size());
  }
};

/// Exactly `n` bytes, or an error saying the header is truncated.
std::string read_header_bytes(std::istream& in, std::size_t n, const std::string& origin) {
  std::string bytes(n, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(n));
  if (static_cast<std::size_t>(in.gcount()) != n) throw Error(origin + ": truncated .npy header");
  return bytes;
}

/// The data of `count` elements of type Stored, each converted by `to_float`; the stream must end right after
/// it. Memory grows with the data actually read, never ahead of it, so a shape that promises more than the
/// file holds costs nothing.
template <typename Stored, typename Convert>
std::vector<float> read_data(std::istream& in, std::uint64_t count, const std::string& origin, Convert to_float) {
  constexpr std::uint64_t kChunkElements = 1 << 20;
  const std::uint64_t need_bytes = checked_mul(count, sizeof(Stored));
  std::vector<float> data;
  std::vector<Stored> chunk;
  while (data.size() < count) {
    const std::size_t before = data.size();
    const std::size_t n = static_cast<std::size_t>(std::min(count - before, kChunkElements));
    chunk.resize(n);
    in.read(reinterpret_cast<char*>(chunk.data()), static_cast<std::streamsize>(n * sizeof(Stored)));
    const auto got_bytes = static_cast<std::size_t>(in.gcount());
    if (got_bytes != n * sizeof(Stored))
      throw Error(origin + ": data holds " + std::to_string(before * sizeof(Stored) + got_bytes) +
                  " bytes, the shape needs " + std::to_string(need_bytes));
    data.reserve(before + n);
    for (Stored s : chunk) data.push_back(to_float(s));  // little-endian host: the bytes are the values
  }
  if (in.peek() != std::char_traits<char>::eof())
    throw Error(origin + ": data holds more than the " + std::to_string(need_bytes) + " bytes the shape needs");
  return data;
}

/// The dtype of a descr ('<f4', '<f2', '<u2' where bfloat16 bits are asked for); anything else is an error.
NpyDtype dtype_of(const std::string& descr, Uint16Data u2, const std::string& origin) {
  if (descr == "'<f4'") return NpyDtype::float32;
  if (descr == "'<f2'") return NpyDtype::float16;
  if (descr == "'<u2'" && u2 == Uint16Data::bfloat16_bits) return NpyDtype::bfloat16;
  throw Error(origin + ": dtype " + descr + " is not little-endian float32 ('<f4') or float16 ('<f2')" +
              (u2 == Uint16Data::bfloat16_bits ? ", nor bfloat16 bits as uint16 ('<u2')" : ""));
}

NpyArray read_stream(std::istream& in, const std::string& origin, Uint16Data u2) {
  constexpr std::string_view kMagic("\x93NUMPY", 6);
  std::string preamble(10, '\0');  // magic, version (2 bytes), then a 2-byte (v1) or 4-byte header length
  in.read(preamble.data(), static_cast<std::streamsize>(preamble.size()));
  if (in.gcount() != 10 || preamble.substr(0, 6) != kMagic)
    throw Error(origin + ": not a .npy file (bad magic string)");
  const int major = static_cast<unsigned char>(preamble[6]);
  if (major < 1 || major > 3)
    throw Error(origin + ": unsupported .npy format version " + std::to_string(major) + " (1, 2 or 3)");
  if (major > 1) preamble += read_header_bytes(in, 2, origin);
  const std::uint64_t header_length = little_endian(std::string_view(preamble).substr(8));
  if (header_length > kMaxHeaderBytes)
    throw Error(origin + ": .npy header of " + std::to_string(header_length) + " bytes is above the limit of " +
                std::to_string(kMaxHeaderBytes) + " bytes");
  const std::string header = read_header_bytes(in, header_length, origin);
  HeaderParser parser(header, origin);
  const auto dict = parser.dict();
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (!dict.count(key)) parser.fail(std::string("missing key '") + key + "'");
  if (dict.size() != 3) parser.fail("unexpected keys (only descr, fortran_order, shape)");
  const NpyDtype dtype = dtype_of(dict.at("descr"), u2, origin);
  if (dict.at("fortran_order") != "False") {
    if (dict.at("fortran_order") == "True") throw Error(origin + ": Fortran-order arrays are not supported");
    parser.fail("fortran_order must be True or False");
  }
  NpyArray array{parse_shape(dict.at("shape"), parser), {}, dtype};
  std::uint64_t count = 1;
  for (std::uint64_t dim : array.shape) {
    if (dim != 0 && count > std::numeric_limits<std::uint64_t>::max() / sizeof(float) / dim)
      throw Error(origin + ": the shape's element count overflows 64 bits");
    count *= dim;
  }
  switch (dtype) {
    case NpyDtype::float32: array.data = read_data<float>(in, count, origin, [](float x) { return x; }); break;
    case NpyDtype::float16: array.data = read_data<std::uint16_t>(in, count, origin, &from_half_bits); break;
    case NpyDtype::bfloat16:
      array.data = read_data<std::uint16_t>(in, count, origin, [](std::uint16_t bits) {
        return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
      });
      break;
  }
  return array;
}

}  // namespace

std::string_view dtype_name(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::float32: return "float32";
    case NpyDtype::float16: return "float16";
    case NpyDtype::bfloat16: return "bfloat16";
  }
  return "?";
}

NpyArray parse_npy(std::string_view bytes, const std::string& origin, Uint16Data u2) {
  ViewBuffer buffer(bytes);
  std::istream in(&buffer);
  return read_stream(in, origin, u2);
}

NpyArray read_npy(const std::string& path, Uint16Data u2) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error("cannot read '" + path + "': it is a directory");
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error("cannot open '" + path + "'");
  remember_input_file(path);
  NpyArray array = read_stream(file, path, u2);
  if (file.bad()) throw Error("cannot read '" + path + "'");
  return array;
}

std::string npy_bytes(const std::vector<std::uint64_t>& shape, const std::vector<float>& data) {
  std::uint64_t count = 1;
  std::string tuple;
  for (std::uint64_t dim : shape) {
    count = checked_mul(count, dim);
    tuple += std::to_string(dim) + ", ";
  }
  if (shape.size() == 1)
    tuple.pop_back();  // "(3,)"
  else if (!tuple.empty())
    tuple.resize(tuple.size() - 2);
  if (count != data.size())
    throw Error("npy: the shape holds " + std::to_string(count) + " values, the data " + std::to_string(data.size()));
  constexpr std::size_t kPreambleBytes = 10, kAlignBytes = 64;
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + tuple + "), }";
  header.append((kAlignBytes - (kPreambleBytes + header.size() + 1) % kAlignBytes) % kAlignBytes, ' ').push_back('\n');
  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>(header.size() >> 8));
  bytes += header;
  bytes.append(reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float));  // little-endian host
  return bytes;
}

}  // namespace ecosim::ecoformer
