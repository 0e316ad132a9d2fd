// parse_json: values parse as nlohmann's parser reads them; the depth and size limits hold at their exact
// boundaries; hostile nesting, duplicate keys and syntax errors are ecosim::Errors with file, line (and column).
#include <catch2/catch.hpp>
#include <string>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"

using namespace ecosim;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string message_of(std::string_view text, JsonLimits limits = {}, std::size_t first_line = 1) {
  try {
    parse_json(text, "x.json", limits, first_line);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

/// `levels` nested arrays, one opening bracket per line.
std::string nested_arrays(std::size_t levels) {
  std::string s;
  for (std::size_t i = 0; i < levels; ++i) s += "[\n";
  return s + std::string(levels, ']');
}

}  // namespace

TEST_CASE("parse_json reads what nlohmann's parser reads") {
  const std::string text = R"({"a": [1, -2, 3.5, "s", true, null, {}], "b": {"c": 18446744073709551615}})";
  CHECK(parse_json(text, "x.json") == nlohmann::json::parse(text));
  CHECK(parse_json(R"({"a": {"k": 1}, "b": {"k": 2}})", "x.json")["b"]["k"] == 2);  // same key, other objects
  CHECK(parse_json("  7 ", "x.json") == 7);
}

TEST_CASE("nesting is limited to 64 levels, and deeper input fails at the level that breaks it") {
  CHECK(parse_json(nested_arrays(kMaxJsonDepth), "x.json").is_array());
  CHECK(message_of(nested_arrays(kMaxJsonDepth + 1)) == "x.json:65: JSON nested deeper than 64 levels");
  CHECK(message_of(nested_arrays(100'000)) == "x.json:65: JSON nested deeper than 64 levels");
  std::string objects;
  for (int i = 0; i < 100'000; ++i) objects += "{\"a\":\n";
  CHECK(message_of(objects) == "x.json:65: JSON nested deeper than 64 levels");
  CHECK(message_of(std::string(10'000'000, '[')) == "x.json:1: JSON nested deeper than 64 levels");
  CHECK(parse_json("[[1]]", "x.json", {.max_depth = 2}) == nlohmann::json::array({nlohmann::json::array({1})}));
  CHECK(message_of("[[[1]]]", {.max_depth = 2}) == "x.json:1: JSON nested deeper than 2 levels");
}

TEST_CASE("duplicate keys are errors naming the key and its line, at any depth") {
  CHECK(message_of("{\"a\": 1,\n \"a\": 2}") == "x.json:2: duplicate key 'a'");
  CHECK(message_of("{\"o\": {\"k\": 1,\n\n  \"k\": {}}}") == "x.json:3: duplicate key 'k'");
  CHECK(message_of("[{\"k\": 1}, {\"k\": 2, \"k\": 3}]") == "x.json:1: duplicate key 'k'");
  const std::string long_key(1000, 'k');  // the message quotes a bounded excerpt of a long key
  const std::string m = message_of("{\"" + long_key + "\": 1, \"" + long_key + "\": 2}");
  CHECK_THAT(m, StartsWith("x.json:1: duplicate key 'kkk"));
  CHECK(m.size() < 100);
}

TEST_CASE("syntax errors carry line and column") {
  CHECK_THAT(message_of("{\n  \"a\": 1 2\n}"), StartsWith("x.json:2:10: not valid JSON: syntax error"));
  CHECK_THAT(message_of("[1,\n2,,]", {}, 7), StartsWith("x.json:8:3: not valid JSON: "));
  CHECK_THAT(message_of("{"), StartsWith("x.json:1:2: not valid JSON: ") && Contains("unexpected end of input"));
  CHECK_THAT(message_of(""), StartsWith("x.json:1:1: not valid JSON: "));
  CHECK_THAT(message_of("[1] x"), StartsWith("x.json:1:5: not valid JSON: "));
  CHECK_THAT(message_of("[1e400]"), StartsWith("x.json:1:") && Contains("number overflow"));
  CHECK(message_of("\"" + std::string(1'000'000, 'a')).size() < 400);  // an unterminated string is not echoed
}

TEST_CASE("a document above the size limit is refused before parsing") {
  CHECK(parse_json("[1,2,3,45]", "x.json", {.max_bytes = 10}).size() == 4);
  CHECK(message_of("[1,2,3,456]", {.max_bytes = 10}) == "x.json: JSON text of 11 bytes is above the limit of 10 bytes");
  CHECK_THAT(message_of(std::string(kMaxJsonDocumentBytes + 1, ' ')),
             Contains("above the limit of " + std::to_string(kMaxJsonDocumentBytes) + " bytes"));
}
