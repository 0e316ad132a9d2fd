// A trace's float storage (traces/README.md, header): under `operand` float bytes move at the array's float
// operand width (8 bits by default), under `recorded` at their own width (fp32 32, bf16 16); integer and code
// types keep theirs either way, and the array refuses float operands it would have to tile at another width.
#include <catch2/catch.hpp>

#include "accel_test_support.hpp"
#include "ecosim/ops_counter/primitives.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using ecosim::test::tech;

namespace {

/// A DMA record moving `elements` of type t: a store writes them, a load reads them.
OpRecord transfer(DType t, std::uint64_t elements, bool store) {
  OpRecord r;
  r.name = "transfer";
  r.kind = OpClass::memcpy;
  r.n = elements;
  r.a_dtype = r.b_dtype = t;
  if (store)
    r.counts.add_written_bytes(t, storage_bytes(t, elements));
  else
    r.counts.add_read_bytes(t, storage_bytes(t, elements));
  return r;
}

/// DRAM bits of all of a plan's tiles (loads and stores), walked tile by tile.
std::uint64_t walked_dram_bits(const OpPlan& plan) {
  std::uint64_t bits = 0;
  PlanCursor cursor(plan);
  TileWork t;
  while (cursor.next(t)) bits += t.load_total_bits() + t.store_bits;
  return bits;
}

}  // namespace

TEST_CASE("float bytes move at the operand width under operand storage, at their own under recorded") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  REQUIRE(c.float_operand_bits == 8);
  constexpr std::uint64_t n = 4096;
  struct Case {
    DType t;
    unsigned operand, recorded;  // bits per element in DRAM
  };
  for (const Case& x : {Case{DType::fp32, 8, 32}, Case{DType::fp16, 8, 16}, Case{DType::bf16, 8, 16},
                        Case{DType::int2, 2, 2}, Case{DType::int8, 8, 8}}) {
    INFO(name(x.t));
    for (bool store : {true, false}) {
      const OpRecord r = transfer(x.t, n, store);
      CHECK(walked_dram_bits(plan_op(r, c, tech())) == n * x.operand);
      CHECK(walked_dram_bits(plan_op(r, c, tech(), nullptr, trace::FloatStorage::recorded)) == n * x.recorded);
    }
    CHECK(stored_bits(x.t, trace::FloatStorage::recorded, c) == x.recorded);
  }
}

TEST_CASE("a vector-unit record reads and writes at the recorded width") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  OpRecord r = ops::eltwise("scale", "scale", 1, 64, 64, DType::fp32, {.mul = 1});
  CHECK(walked_dram_bits(plan_op(r, c, tech())) == 2 * 64 * 64 * 8);
  CHECK(walked_dram_bits(plan_op(r, c, tech(), nullptr, trace::FloatStorage::recorded)) == 2 * 64 * 64 * 32);
}

TEST_CASE("the array refuses float operands under recorded storage, not integer ones") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  CHECK_THROWS_WITH(plan_op(test::gemm(1, 16, 16, 16, DType::fp32), c, tech(), nullptr, trace::FloatStorage::recorded),
                    Catch::Contains("float_storage 'recorded'") && Catch::Contains("gemm"));
  CHECK_NOTHROW(plan_op(test::gemm(1, 16, 16, 16, DType::int8), c, tech(), nullptr, trace::FloatStorage::recorded));
}
