// read_text_file: the whole file within the limit, a clear error above it, never reading past the limit.
#include <catch2/catch.hpp>
#include <fstream>

#include "../unique_temp_path.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/text_file.hpp"

using namespace ecosim;
using Catch::Matchers::Contains;

TEST_CASE("read_text_file reads up to its limit and refuses a byte more") {
  const auto path = unique_temp_path("ecosim_text_file", ".txt");
  const std::string text(100'000, 'x');  // more than one read chunk
  std::ofstream(path, std::ios::binary) << text;
  CHECK(read_text_file(path.string()) == text);
  CHECK(read_text_file(path.string(), text.size()) == text);
  CHECK_THROWS_WITH(read_text_file(path.string(), text.size() - 1),
                    Contains("'" + path.string() + "'") && Contains("limit of 99999 bytes"));
  std::filesystem::remove(path);
}

TEST_CASE("read_text_file stops an endless device at the limit") {
  CHECK_THROWS_WITH(read_text_file("/dev/zero", 1 << 20), Contains("limit of 1048576 bytes"));
  CHECK_THROWS_WITH(read_text_file("/nonexistent/file.json", 10), Contains("cannot open"));
}
