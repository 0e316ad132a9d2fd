// Accelerator configuration values have physical ranges: each bound is accepted and the nearest value beyond
// it is rejected with the key path and the range; a duplicate key or deep nesting fails with its line.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using Catch::Matchers::Contains;

namespace {

/// `c` with `path` (dotted) set to the JSON literal `value`.
void set(nlohmann::json& c, const std::string& path, const std::string& value) {
  nlohmann::json* node = &c;
  for (std::size_t start = 0, dot = 0; dot != std::string::npos; start = dot + 1) {
    dot = path.find('.', start);
    node = &(*node)[path.substr(start, dot == std::string::npos ? dot : dot - start)];
  }
  *node = nlohmann::json::parse(value);
}

/// A configuration setting `path` to the JSON literal `value` (and each of `also`'s paths to its value, where a
/// bound needs other keys: 8-bit partial sums need operands of at most 4 bits), over buffers large enough for any
/// array size (so the one-tile check never hides a range check).
std::string config_with(const std::string& path, const std::string& value,
                        const std::vector<std::pair<std::string, std::string>>& also = {}) {
  nlohmann::json c = {{"buffers", {{"weights", {{"bytes", 1 << 30}}}, {"outputs", {{"bytes", 1 << 30}}}}}};
  for (const auto& [other, other_value] : also) set(c, other, other_value);
  set(c, path, value);
  return c.dump();
}

struct Bound {
  std::string path, inside, outside;
  std::vector<std::pair<std::string, std::string>> also = {};
};

}  // namespace

TEST_CASE("every configuration number has a physical range, checked at both ends") {
  const Bound bounds[] = {
      {"clock_mhz", "1", "0.999"},
      {"clock_mhz", "10000", "10000.001"},
      {"array.pmax_bits", "16", "17"},
      {"array.pmin_bits", "2", "1"},
      {"array.rows", "4096", "4097"},
      {"array.cols", "1", "0"},
      {"array.cols", "4096", "4097"},
      {"array.accumulator_bits", "8", "7", {{"array.pmax_bits", "4"}, {"mapping.float_operand_bits", "4"}}},
      {"array.accumulator_bits", "64", "65"},
      {"buffers.inputs.bytes", "1073741824", "1073741825"},
      {"dram.bits_per_cycle", "1", "0"},
      {"dram.bits_per_cycle", "65536", "65537"},
      {"dram.latency_cycles", "100000", "100001"},
      {"dram.pj_per_bit", "0", "-0.5"},
      {"dram.pj_per_bit", "1e4", "10000.01"},
      {"vector_unit.lanes", "1", "0"},
      {"vector_unit.lanes", "65536", "65537"},
      {"vector_unit.cycles_per_op.mul", "1", "0"},
      {"vector_unit.cycles_per_op.popcount", "10000", "10001"},
      {"mapping.float_operand_bits", "2", "1"},
      {"mapping.float_operand_bits", "16", "17"},
  };
  for (const Bound& b : bounds) {
    INFO(b.path << ": " << b.inside << " inside, " << b.outside << " outside");
    CHECK_NOTHROW(parse_config(config_with(b.path, b.inside, b.also), "c.json"));
    CHECK_THROWS_WITH(parse_config(config_with(b.path, b.outside, b.also), "c.json"),
                      Contains("c.json: " + b.path + ": ") && Contains("out of range ["));
  }
  CHECK(parse_config(config_with("clock_mhz", "10000"), "c.json").clock_mhz == 10000);
  CHECK(parse_config(config_with("dram.latency_cycles", "100000"), "c.json").dram_latency_cycles == 100000);
}

TEST_CASE("an implausible clock names the key, the value and the range") {
  CHECK_THROWS_WITH(parse_config(R"({"clock_mhz": 1e-300})", "c.json"),
                    Contains("c.json: clock_mhz: 1e-300 is out of range [1") && Contains("MHz"));
  CHECK_THROWS_WITH(parse_config(R"({"dram": {"latency_cycles": -1}})", "c.json"),
                    Contains("dram.latency_cycles: must be a non-negative integer"));
}

TEST_CASE("an empty name is refused (every report would name the accelerator \"\")") {
  CHECK_THROWS_WITH(parse_config(R"({"name": ""})", "c.json"), Contains("c.json: name: must not be empty"));
}

TEST_CASE("configurations are strict JSON: duplicate keys and deep nesting fail with their line") {
  CHECK_THROWS_WITH(parse_config("{\"dram\": {\"pj_per_bit\": 15,\n \"pj_per_bit\": 1}}", "c.json"),
                    Contains("c.json:2: duplicate key 'pj_per_bit'"));
  CHECK_THROWS_WITH(parse_config(std::string(100'000, '[') + std::string(100'000, ']'), "c.json"),
                    Contains("c.json:1: JSON nested deeper than 64 levels"));
}
