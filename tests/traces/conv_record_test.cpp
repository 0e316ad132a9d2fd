// The conv record kind: a convolution built by the op counter round-trips through the writer and the reader,
// and the reader rejects conv params that do not describe a convolution, naming the problem, and an exact record
// whose multiplications are not its shape's MACs.
#include <catch2/catch.hpp>
#include <string>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/primitives.hpp"
#include "ecosim/traces/trace.hpp"

#include "trace_test_records.hpp"

using namespace ecosim;

namespace {

const ConvShape kPatchEmbed{.in_channels = 3,
                            .in_h = 224,
                            .in_w = 224,
                            .out_channels = 32,
                            .kernel_h = 7,
                            .kernel_w = 7,
                            .stride = 4,
                            .padding = 3};

std::string trace_of(const nlohmann::json& op, int version = 2) {
  nlohmann::json header = nlohmann::json::parse(kHeader);
  header["version"] = version;
  return header.dump() + "\n" + op.dump() + "\n" + R"({"record":"end","ops":1})" + "\n";
}

}  // namespace

TEST_CASE("a conv record round-trips with its geometry") {
  const OpRecord conv = ops::conv("stage1.patch_embed", kPatchEmbed, true);
  CHECK(conv.m == 56 * 56);
  CHECK(conv.n == 32);
  CHECK(conv.k == 3 * 7 * 7);
  // bytes: input, weights and bias, output, each once (fp32)
  CHECK(conv.counts.read_bytes(DType::fp32) == 4 * (3 * 224 * 224 + 32 * 147 + 32));
  CHECK(conv.counts.written_bytes(DType::fp32) == 4 * 32 * 56 * 56);
  const trace::Trace t = trace::parse(trace_of(trace::to_json(conv)), "t.jsonl");
  REQUIRE(t.ops.size() == 1);
  CHECK(t.ops[0] == conv);
  CHECK(conv_shape(t.ops[0]).out_h() == 56);
}

TEST_CASE("conv params that are no convolution are rejected") {
  const nlohmann::json good = trace::to_json(ops::conv("c", kPatchEmbed, false));
  struct Case {
    std::string key;
    nlohmann::json value;  // null: removed
    std::string message;
  };
  const Case cases[] = {
      {"groups", nullptr, "needs params.groups"},
      {"groups", 0, "groups must be in 1..2^40"},
      {"groups", 2, "must divide the input and output channels"},
      {"kernel_h", 300, "kernel larger than its padded input"},
      {"stride", 0, "stride must be in 1..2^40"},
      {"dilation", 2, "unknown conv param 'dilation'"},
      {"stride", 2, "m, n, k must be"},
  };
  for (const Case& c : cases) {
    INFO(c.key);
    nlohmann::json op = good;
    if (c.value.is_null())
      op["params"].erase(c.key);
    else
      op["params"][c.key] = c.value;
    CHECK_THROWS_WITH(trace::parse(trace_of(op), "t.jsonl"),
                      Catch::Contains("field 'params'") && Catch::Contains(c.message));
  }
  CHECK_THROWS_WITH(trace::parse(trace_of(good, 1), "t.jsonl"), Catch::Contains("version 1 has no conv kind"));
}

TEST_CASE("an exact conv record multiplies its shape's MACs, batch·m·n·k, or is refused") {
  REQUIRE(nlohmann::json::parse(kHeader).at("convention") == "exact");
  const OpRecord conv = ops::conv("c", kPatchEmbed, true);
  nlohmann::json op = trace::to_json(conv);
  const std::uint64_t macs = std::uint64_t{56} * 56 * 32 * (3 * 7 * 7);
  REQUIRE(op["ops"]["mul"]["fp32"] == macs);
  op["ops"]["mul"]["fp32"] = 5;
  CHECK_THROWS_WITH(trace::parse(trace_of(op), "t.jsonl"),
                    Catch::Contains("field 'ops.mul': 5 multiplications where its shape multiplies batch·m·n·k = " +
                                    std::to_string(macs)));
}
