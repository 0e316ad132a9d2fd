// Internal: a JSON object written as its rows arrive — {"<array>": [row, row, ...], <other fields>} — so a
// report with millions of rows never holds them (object members are unordered, so the totals come last).
#pragma once
#include <ostream>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ecosim::cli {

class StreamedJsonObject {
 public:
  /// Opens the object and its array member `array_key`.
  StreamedJsonObject(std::ostream& out, std::string_view array_key);
  /// Appends one element to the array (one line each).
  void item(const nlohmann::json& element);
  /// Closes the array, then writes the object's other members (`fields`, an object) and closes it.
  void finish(const nlohmann::json& fields);

 private:
  std::ostream& out_;
  bool first_ = true;
};

}  // namespace ecosim::cli
