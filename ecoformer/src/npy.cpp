// Strict reader of float32 .npy files (format versions 1.0, 2.0 and 3.0): magic, header dict with exactly
// the keys descr, fortran_order and shape, '<f4' data in C order whose byte count matches the shape.
#include "ecosim/ecoformer/npy.hpp"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::ecoformer {

namespace {

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
      if (peek() == ',') ++pos_;
      else if (peek() != '}') fail("expected ',' or '}' after the value of '" + key + "'");
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

}  // namespace

NpyArray parse_npy(std::string_view bytes, const std::string& origin) {
  constexpr std::string_view kMagic("\x93NUMPY", 6);
  if (bytes.size() < 10 || bytes.substr(0, 6) != kMagic) throw Error(origin + ": not a .npy file (bad magic string)");
  const int major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3)
    throw Error(origin + ": unsupported .npy format version " + std::to_string(major) + " (1, 2 or 3)");
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) throw Error(origin + ": truncated .npy header");
  const std::uint64_t header_length = little_endian(bytes.substr(8, length_bytes));
  const std::uint64_t data_offset = 8 + length_bytes + header_length;
  if (data_offset > bytes.size()) throw Error(origin + ": truncated .npy header");
  HeaderParser parser(bytes.substr(8 + length_bytes, header_length), origin);
  const auto dict = parser.dict();
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (!dict.count(key)) parser.fail(std::string("missing key '") + key + "'");
  if (dict.size() != 3) parser.fail("unexpected keys (only descr, fortran_order, shape)");
  if (dict.at("descr") != "'<f4'")
    throw Error(origin + ": dtype " + dict.at("descr") + " is not little-endian float32 ('<f4')");
  if (dict.at("fortran_order") != "False") {
    if (dict.at("fortran_order") == "True") throw Error(origin + ": Fortran-order arrays are not supported");
    parser.fail("fortran_order must be True or False");
  }
  NpyArray array{parse_shape(dict.at("shape"), parser), {}};
  std::uint64_t count = 1;
  for (std::uint64_t dim : array.shape) count = checked_mul(count, dim);
  const std::uint64_t data_bytes = bytes.size() - data_offset;
  if (data_bytes != checked_mul(count, 4))
    throw Error(origin + ": data holds " + std::to_string(data_bytes) + " bytes, the shape needs " +
                std::to_string(checked_mul(count, 4)));
  array.data.resize(count);
  if (count > 0) std::memcpy(array.data.data(), bytes.data() + data_offset, data_bytes);  // little-endian host
  return array;
}

NpyArray read_npy(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error("cannot open '" + path + "'");
  const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad()) throw Error("cannot read '" + path + "'");
  return parse_npy(bytes, path);
}

}  // namespace ecosim::ecoformer
