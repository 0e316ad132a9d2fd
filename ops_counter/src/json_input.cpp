// parse_json: nlohmann's iterative SAX parser driving a DOM builder that enforces the depth limit and unique
// keys as it goes, over an input iterator that tells the builder how far the parser has read (for line numbers).
#include "ecosim/ops_counter/json_input.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

namespace {

using nlohmann::json;

/// Forward iteration over the text that records in `*read_end` the end of what has been read so far.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator(const char* at, const char** read_end) : at_(at), read_end_(read_end) {}
  reference operator*() const { return *at_; }
  CountingIterator& operator++() {
    *read_end_ = ++at_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return at_ == other.at_; }

 private:
  const char* at_;
  const char** read_end_;
};

/// At most `max_bytes` of `s`, cut at a UTF-8 character boundary, "…" marking a cut.
std::string excerpt(std::string_view s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "…";
}

/// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string reason(std::string_view what) {
  if (what.starts_with("[json.exception.")) what.remove_prefix(std::min(what.size(), what.find("] ") + 2));
  if (what.starts_with("parse error"))
    if (const std::size_t colon = what.find(": "); colon != std::string_view::npos) what.remove_prefix(colon + 2);
  return excerpt(what, 200);
}

class StrictDomBuilder {
 public:
  StrictDomBuilder(std::string_view text, const std::string& origin, JsonLimits limits, std::size_t first_line)
      : text_(text), origin_(origin), limits_(limits), first_line_(first_line), read_end_(text.data()) {}

  const char** read_end() { return &read_end_; }
  json take() { return std::move(root_); }

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(json::number_integer_t v) { return add(v); }
  bool number_unsigned(json::number_unsigned_t v) { return add(v); }
  bool number_float(json::number_float_t v, const std::string&) { return add(v); }
  bool string(std::string& v) { return add(std::move(v)); }
  bool binary(json::binary_t& v) { return add(json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    // One lookup; try_emplace leaves `k` intact when the key is already there.
    const auto [member, added] = open_.back()->get_ref<json::object_t&>().try_emplace(std::move(k));
    if (!added) fail("duplicate key '" + excerpt(k, 64) + "'");
    pending_member_ = &member->second;
    return true;
  }
  bool parse_error(std::size_t bytes_read, const std::string&, const json::exception& e) {
    const std::size_t at = std::min(bytes_read, text_.size() + 1) - 1;  // the byte the parser stopped at
    throw Error(origin_ + ":" + std::to_string(line_of(at)) + ":" + std::to_string(at - line_start(at) + 1) +
                ": not valid JSON: " + reason(e.what()));
  }

 private:
  /// Puts `v` where the parser is (the root, the next array element or the pending object member).
  json* place(json v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *open_.back();
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    *pending_member_ = std::move(v);
    return pending_member_;
  }
  bool add(json v) {
    place(std::move(v));
    return true;
  }
  bool open(json container) {
    if (open_.size() == limits_.max_depth)
      fail("JSON nested deeper than " + std::to_string(limits_.max_depth) + " levels");
    open_.push_back(place(std::move(container)));
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  std::size_t line_start(std::size_t at) const {
    const std::size_t newline = text_.substr(0, at).rfind('\n');
    return newline == std::string_view::npos ? 0 : newline + 1;
  }
  std::size_t line_of(std::size_t at) const {
    return first_line_ + static_cast<std::size_t>(std::count(text_.begin(), text_.begin() + at, '\n'));
  }
  /// An error at the last byte read.
  [[noreturn]] void fail(const std::string& problem) const {
    const auto read = static_cast<std::size_t>(read_end_ - text_.data());
    throw Error(origin_ + ":" + std::to_string(line_of(read == 0 ? 0 : read - 1)) + ": " + problem);
  }

  std::string_view text_;
  const std::string& origin_;
  JsonLimits limits_;
  std::size_t first_line_;
  const char* read_end_;
  json root_;
  std::vector<json*> open_;         // the arrays and objects being filled, innermost last
  json* pending_member_ = nullptr;  // the member whose key the parser has just read
};

}  // namespace

json parse_json(std::string_view text, const std::string& origin, JsonLimits limits, std::size_t first_line) {
  if (text.size() > limits.max_bytes)
    throw Error(origin + ": JSON text of " + std::to_string(text.size()) + " bytes is above the limit of " +
                std::to_string(limits.max_bytes) + " bytes");
  StrictDomBuilder builder(text, origin, limits, first_line);
  json::sax_parse(CountingIterator(text.data(), builder.read_end()),
                  CountingIterator(text.data() + text.size(), builder.read_end()), &builder);
  return builder.take();
}

}  // namespace ecosim
