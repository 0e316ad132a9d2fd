// Strict reading of a parsed JSON document (parse_json): every value looked up by its dotted path,
// type-checked and range-checked, and every key checked against the keys the reader knows, so that a misspelled
// key is an error instead of a value silently left at its default. Every failure is an ecosim::Error that names
// the document and the path: "<origin>: <path>: <problem>", e.g. "c.json: array.rowz: unknown key (did you mean
// 'rows'?)". The one mechanism behind every JSON input of ecosim (zoo files, configurations, cost tables, sweep
// specs, the built-in data, the fields of trace records).
#pragma once
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace ecosim {

/// The physical range of a number (inclusive), and its unit for error messages.
template <class T>
struct Range {
  T min, max;
  std::string_view unit;
};

/// `problem` ("unknown key"), followed by "(did you mean 'k'?)" when a known key is a likely misspelling of `key`
/// (at most two edits away: insertions, deletions, substitutions, swaps of neighbours), else by
/// "(known: a, b, …)".
std::string unknown_key_problem(std::string_view key, std::span<const std::string_view> known,
                                std::string_view problem = "unknown key");

/// Throws "<origin>: <path>.<key>: unknown key …" (unknown_key_problem) for the first key of `object` (in
/// order) that is not in `known`; nothing for a value that is not an object. `path` is the object's own dotted
/// path ("" for the root).
void reject_unknown_keys(const nlohmann::json& object, std::span<const std::string_view> known, std::string_view origin,
                         std::string_view path = "");

/// `path`.`key`, or `key` at the root.
std::string child_path(std::string_view path, std::string_view key);

class JsonReader {
 public:
  JsonReader(const nlohmann::json& root, std::string origin) : root_(root), origin_(std::move(origin)) {}

  /// The value at the dotted `path` ("array.rows"); fails "missing" where it is not there.
  const nlohmann::json& at(const std::string& path) const;
  std::uint64_t count(const std::string& path, Range<std::uint64_t> range) const;
  double number(const std::string& path, Range<double> range) const;
  bool flag(const std::string& path) const;
  std::string text(const std::string& path) const;  // a non-empty string
  /// The array at `path` (possibly empty).
  const nlohmann::json& list(const std::string& path) const;
  /// The object at `path`.
  const nlohmann::json& object(const std::string& path) const;
  /// Fails unless the object at the root has all the keys `keys` and no others but `optional` ones.
  void exact_keys(std::initializer_list<std::string_view> keys,
                  std::initializer_list<std::string_view> optional = {}) const;
  /// Whether the object at the root has `key`.
  bool has(const std::string& key) const { return root_.is_object() && root_.contains(key); }
  /// Throws ecosim::Error "<origin>: <path>: <problem>".
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const;

 private:
  const nlohmann::json& root_;
  std::string origin_;
};

}  // namespace ecosim
