// Technology table: the 45 nm values of DESIGN §4, estimated entries marked, and parse errors.
#include <catch2/catch.hpp>

#include "ecosim/ops_counter/energy.hpp"

using namespace ecosim;

TEST_CASE("built-in 45 nm table holds Horowitz's measured values") {
  const TechTable t = TechTable::builtin_45nm();
  CHECK(t.find(OpKind::mul, DType::fp32)->pj == 3.7);
  CHECK(t.find(OpKind::add, DType::fp32)->pj == 0.9);
  CHECK(t.find(OpKind::mul, DType::int8)->pj == 0.2);
  CHECK(t.find(OpKind::add, DType::int8)->pj == 0.03);
  CHECK(t.find(OpKind::mul, DType::fp16)->pj == 1.1);
  CHECK(t.find(OpKind::add, DType::int32)->source == "Horowitz 2014");
  CHECK(t.find(OpKind::exp, DType::fp32)->source.starts_with("estimated: "));
}

TEST_CASE("energy sums count × pJ and refuses ops the table lacks") {
  const TechTable t = TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": 2.5}]})", "t");
  OpCounts c;
  c.add(OpKind::mul, DType::fp32, 4);
  CHECK(t.energy_pj(c) == 10.0);
  c.add(OpKind::exp, DType::fp32, 1);
  CHECK_THROWS_WITH(t.energy_pj(c), Catch::Contains("no energy for exp on fp32"));
}

TEST_CASE("malformed tables are rejected with the entry named") {
  CHECK_THROWS_WITH(TechTable::parse("{", "x.json"), Catch::Contains("not valid JSON"));
  CHECK_THROWS_WITH(TechTable::parse(R"({"name": "t", "ops": [{"op": "fma", "dtype": "fp32", "pj": 1}]})", "x"),
                    Catch::Contains("ops[0]: unknown op 'fma'"));
  CHECK_THROWS_WITH(TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp8", "pj": 1}]})", "x"),
                    Catch::Contains("unknown dtype"));
  CHECK_THROWS_WITH(TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": -1}]})", "x"),
                    Catch::Contains("ops[0]: pj -1 is out of range [0, 1e+06]"));
  CHECK_THROWS_WITH(TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": 1},
                                                              {"op": "mul", "dtype": "fp32", "pj": 2}]})", "x"),
                    Catch::Contains("duplicate"));
  CHECK_THROWS_WITH(TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": 1, "source": 7}]})",
                                     "x"),
                    Catch::Contains("ops[0]: 'source' must be a string"));
  CHECK_THROWS_WITH(TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": 1}], "ops": []})",
                                     "x"),
                    Catch::Contains("x:1: duplicate key 'ops'"));
  CHECK_THROWS_AS(TechTable::load("/nonexistent/table.json"), Error);
}

TEST_CASE("a table's energies lie within [0, 1e6] pJ per operation") {
  auto table = [](const std::string& pj) {
    return R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": )" + pj + "}]}";
  };
  CHECK(TechTable::parse(table("0"), "x").find(OpKind::mul, DType::fp32)->pj == 0);
  CHECK(TechTable::parse(table("1e6"), "x").find(OpKind::mul, DType::fp32)->pj == 1e6);
  CHECK_THROWS_WITH(TechTable::parse(table("-1e-300"), "x"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(TechTable::parse(table("1000000.001"), "x"), Catch::Contains("out of range"));
  CHECK_THROWS_WITH(TechTable::parse(table("1e400"), "x"), Catch::Contains("not valid JSON"));
}
