// JsonReader and the unknown-key check: lookups by dotted path, type and range checks, and the suggestion of the
// known key nearest to a misspelled one (optimal string alignment distance).
#include "ecosim/ops_counter/json_reader.hpp"

#include <algorithm>
#include <vector>

#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

namespace {

/// A known key at most this many edits from an unknown one is suggested as what was meant.
constexpr std::size_t kMaxSuggestionEdits = 2;

/// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// Keys longer than this are not compared (a hostile key of megabytes would cost its square).
constexpr std::size_t kMaxComparedKeyBytes = 64;

template <class T>
T in_range(const JsonReader& r, const std::string& path, T x, Range<T> range) {
  if (!(x >= range.min && x <= range.max))  // (negated, so that NaN fails too)
    r.fail(path, fmt::format("{} is out of range [{}, {}]{}", x, range.min, range.max, range.unit));
  return x;
}

}  // namespace

std::string unknown_key_problem(std::string_view key, std::span<const std::string_view> known,
                                std::string_view problem) {
  const std::string_view* nearest = nullptr;
  std::size_t nearest_edits = kMaxSuggestionEdits + 1;
  if (key.size() <= kMaxComparedKeyBytes)
    for (const std::string_view& k : known) {
      const std::size_t edits = edit_distance(key, k);
      // (fewer edits than either key has characters: "x" is no misspelling of "n")
      if (edits < nearest_edits && edits < std::min(key.size(), k.size())) {
        nearest = &k;
        nearest_edits = edits;
      }
    }
  if (nearest) return fmt::format("{} (did you mean '{}'?)", problem, *nearest);
  std::string list;
  for (const std::string_view& k : known) list += fmt::format("{}{}", list.empty() ? "" : ", ", k);
  return fmt::format("{} (known: {})", problem, list);
}

std::string child_path(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

void reject_unknown_keys(const nlohmann::json& object, std::span<const std::string_view> known, std::string_view origin,
                         std::string_view path) {
  if (!object.is_object()) return;
  for (const auto& [key, value] : object.items())
    if (std::find(known.begin(), known.end(), key) == known.end())
      throw Error(fmt::format("{}: {}: {}", origin, child_path(path, key), unknown_key_problem(key, known)));
}

const nlohmann::json& JsonReader::at(const std::string& path) const {
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

std::uint64_t JsonReader::count(const std::string& path, Range<std::uint64_t> range) const {
  const nlohmann::json& v = at(path);
  if (!v.is_number_unsigned()) fail(path, "must be a non-negative integer");
  return in_range(*this, path, v.get<std::uint64_t>(), range);
}

double JsonReader::number(const std::string& path, Range<double> range) const {
  const nlohmann::json& v = at(path);
  if (!v.is_number()) fail(path, "must be a number");
  return in_range(*this, path, v.get<double>(), range);
}

bool JsonReader::flag(const std::string& path) const {
  const nlohmann::json& v = at(path);
  if (!v.is_boolean()) fail(path, "must be true or false");
  return v.get<bool>();
}

std::string JsonReader::text(const std::string& path) const {
  const nlohmann::json& v = at(path);
  if (!v.is_string()) fail(path, "must be a string");
  if (v.get_ref<const std::string&>().empty()) fail(path, "must not be empty");
  return v.get<std::string>();
}

const nlohmann::json& JsonReader::list(const std::string& path) const {
  const nlohmann::json& v = at(path);
  if (!v.is_array()) fail(path, "must be an array");
  return v;
}

const nlohmann::json& JsonReader::object(const std::string& path) const {
  const nlohmann::json& v = at(path);
  if (!v.is_object()) fail(path, "must be an object");
  return v;
}

void JsonReader::exact_keys(std::initializer_list<std::string_view> keys,
                            std::initializer_list<std::string_view> optional) const {
  if (!root_.is_object()) throw Error(fmt::format("{}: must be a JSON object", origin_));
  std::vector<std::string_view> known(keys);
  known.insert(known.end(), optional.begin(), optional.end());
  reject_unknown_keys(root_, known, origin_);
  for (std::string_view key : keys) at(std::string(key));
}

void JsonReader::fail(const std::string& path, const std::string& problem) const {
  throw Error(fmt::format("{}: {}: {}", origin_, path, problem));
}

}  // namespace ecosim
