// Internal: strict reading of the accelerator's JSON documents (configurations and cost tables) — every value
// looked up by its dotted path, type-checked and range-checked, and every failure an ecosim::Error naming the
// document and the path.
#pragma once
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::accel {

/// The physical range of a number (inclusive), and its unit for error messages.
template <class T>
struct Range {
  T min, max;
  std::string_view unit;
};

class Reader {
 public:
  Reader(const nlohmann::json& root, std::string origin) : root_(root), origin_(std::move(origin)) {}

  const nlohmann::json& at(const std::string& path) const {
    const nlohmann::json* node = &root_;
    std::size_t start = 0;
    while (start <= path.size()) {
      const std::size_t dot = std::min(path.find('.', start), path.size());
      const std::string key = path.substr(start, dot - start);
      if (!node->is_object() || !node->contains(key)) fail(path, "missing");
      node = &(*node)[key];
      start = dot + 1;
    }
    return *node;
  }
  std::uint64_t count(const std::string& path, Range<std::uint64_t> range) const {
    const nlohmann::json& v = at(path);
    if (!v.is_number_unsigned()) fail(path, "must be a non-negative integer");
    return in_range(path, v.get<std::uint64_t>(), range);
  }
  double number(const std::string& path, Range<double> range) const {
    const nlohmann::json& v = at(path);
    if (!v.is_number()) fail(path, "must be a number");
    return in_range(path, v.get<double>(), range);
  }
  bool flag(const std::string& path) const {
    const nlohmann::json& v = at(path);
    if (!v.is_boolean()) fail(path, "must be true or false");
    return v.get<bool>();
  }
  std::string text(const std::string& path) const {
    const nlohmann::json& v = at(path);
    if (!v.is_string()) fail(path, "must be a string");
    return v.get<std::string>();
  }
  /// The array at `path` (possibly empty).
  const nlohmann::json& list(const std::string& path) const {
    const nlohmann::json& v = at(path);
    if (!v.is_array()) fail(path, "must be an array");
    return v;
  }
  /// Fails unless the object at the root has all the keys `keys` and no others but `optional` ones.
  void exact_keys(std::initializer_list<std::string_view> keys,
                  std::initializer_list<std::string_view> optional = {}) const {
    if (!root_.is_object()) throw Error(fmt::format("{}: must be a JSON object", origin_));
    for (const auto& [key, value] : root_.items())
      if (std::find(keys.begin(), keys.end(), key) == keys.end() &&
          std::find(optional.begin(), optional.end(), key) == optional.end())
        fail(key, "unknown key");
    for (std::string_view key : keys) at(std::string(key));
  }
  /// Whether the object at the root has `key`.
  bool has(const std::string& key) const { return root_.is_object() && root_.contains(key); }
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw Error(fmt::format("{}: {}: {}", origin_, path, problem));
  }

 private:
  template <class T>
  T in_range(const std::string& path, T x, Range<T> range) const {
    if (!(x >= range.min && x <= range.max))  // (negated, so that NaN fails too)
      fail(path, fmt::format("{} is out of range [{}, {}]{}", x, range.min, range.max, range.unit));
    return x;
  }

  const nlohmann::json& root_;
  std::string origin_;
};

}  // namespace ecosim::accel
