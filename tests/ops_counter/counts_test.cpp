// OpCounts arithmetic: per-type accumulation, totals, and overflow detection instead of wrap-around.
#include <catch2/catch.hpp>
#include <limits>

#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/op_counts.hpp"

using namespace ecosim;

TEST_CASE("counts accumulate per kind and data type") {
  OpCounts c;
  c.add(OpKind::mul, DType::fp32, 5).add(OpKind::mul, DType::int8, 7).add(OpKind::add, DType::fp32, 2);
  c.add_read_bytes(DType::fp16, 10).add_written_bytes(DType::binary, 3);
  CHECK(c.ops(OpKind::mul) == 12);
  CHECK(c.ops(OpKind::mul, DType::int8) == 7);
  CHECK(c.ops(OpKind::add) == 2);
  CHECK(c.read_bytes() == 10);
  CHECK(c.written_bytes() == 3);
  OpCounts twice = c;
  twice += c;
  CHECK(twice.ops(OpKind::mul, DType::fp32) == 10);
  CHECK(c.bytes_only().ops(OpKind::mul) == 0);
  CHECK(c.bytes_only().read_bytes() == 10);
}

TEST_CASE("overflow is detected, never wrapped") {
  constexpr auto max = std::numeric_limits<std::uint64_t>::max();
  OpCounts c;
  c.add(OpKind::add, DType::fp32, max);
  CHECK_THROWS_WITH(c.add(OpKind::add, DType::fp32, 1), Catch::Contains("overflows 64 bits"));
  CHECK_THROWS_AS(checked_mul(std::uint64_t{1} << 32, std::uint64_t{1} << 32), Error);
  CHECK(checked_product({1u << 20, 1u << 20, 1u << 20}) == std::uint64_t{1} << 60);
}

TEST_CASE("storage bytes round packed sub-byte types up") {
  CHECK(storage_bytes(DType::fp32, 3) == 12);
  CHECK(storage_bytes(DType::binary, 9) == 2);
  CHECK(storage_bytes(DType::int4, 3) == 2);
  CHECK(storage_bytes(DType::int2, 4) == 1);
}
