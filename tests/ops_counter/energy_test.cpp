// Technology table: the 45 nm values of DESIGN §4, estimated entries marked, and parse errors.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

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

TEST_CASE("exp, div and sqrt energies are their decompositions' mul and add energies") {
  const TechTable t = TechTable::builtin_45nm();
  const auto pj = [&t](OpKind k, DType d) { return t.find(k, d)->pj; };
  // Hand-computed from Horowitz's fp32 (3.7 mul, 0.9 add) and fp16 (1.1 mul, 0.4 add) energies.
  const auto hand_sum = [](double value) { return Approx(value).epsilon(0).margin(1e-12); };
  CHECK(pj(OpKind::exp, DType::fp32) == hand_sum(6 * 3.7 + 6 * 0.9));
  CHECK(pj(OpKind::exp, DType::fp16) == hand_sum(6 * 1.1 + 6 * 0.4));
  CHECK(pj(OpKind::div, DType::fp32) == hand_sum(5 * 3.7 + 2 * 0.9));
  CHECK(pj(OpKind::div, DType::fp16) == hand_sum(5 * 1.1 + 2 * 0.4));
  CHECK(pj(OpKind::sqrt, DType::fp32) == hand_sum(7 * 3.7 + 2 * 0.9));
  CHECK(pj(OpKind::sqrt, DType::fp16) == hand_sum(7 * 1.1 + 2 * 0.4));
  // bf16 exp, div and sqrt cost exactly the fp16 ones (so a vector unit at bf16 prices LayerNorm's sqrt too);
  // int32 div goes through the fp32 reciprocal.
  CHECK(pj(OpKind::exp, DType::bf16) == pj(OpKind::exp, DType::fp16));
  CHECK(pj(OpKind::div, DType::bf16) == pj(OpKind::div, DType::fp16));
  CHECK(pj(OpKind::sqrt, DType::bf16) == pj(OpKind::sqrt, DType::fp16));
  CHECK(pj(OpKind::div, DType::int32) == pj(OpKind::div, DType::fp32));
  CHECK(t.find(OpKind::exp, DType::bf16)->source ==
        "estimated: as fp16; range reduction + degree-5 polynomial: 6 fp16 mul + 6 fp16 add");
  const Decomposition* sqrt = t.decomposition(OpKind::sqrt);
  REQUIRE(sqrt);
  CHECK(sqrt->ops[std::size_t(OpKind::mul)] == 7);
  CHECK(sqrt->ops[std::size_t(OpKind::add)] == 2);
  CHECK(t.decomposition(OpKind::mul) == nullptr);
}

TEST_CASE("derived energies are the values their inputs define, not their sums' rounding noise") {
  const TechTable t = TechTable::builtin_45nm();
  // 7 × 3.7 + 2 × 0.9 sums to 27.700000000000003 in doubles; the table holds 27.7, the double nearest to it,
  // so reports print "27.7" (the shortest representation that round-trips).
  CHECK(t.find(OpKind::sqrt, DType::fp32)->pj == 27.7);
  CHECK(nlohmann::json(t.find(OpKind::sqrt, DType::fp32)->pj).dump() == "27.7");
  CHECK(t.find(OpKind::sqrt, DType::fp16)->pj == 8.5);  // 7 × 1.1 + 2 × 0.4 sums to 8.500000000000002
  // Measured entries are left as written.
  const TechTable odd = TechTable::parse(
      R"({"name": "t", "decompositions": {"exp": {"ops": {"mul": 3}, "derivation": "d"}}, "ops": [)"
      R"({"op": "mul", "dtype": "fp32", "pj": 0.1234567891234}, {"op": "exp", "dtype": "fp32", "decomposed_at": "fp32"}]})",
      "t");
  CHECK(odd.find(OpKind::mul, DType::fp32)->pj == 0.1234567891234);
  CHECK(odd.find(OpKind::exp, DType::fp32)->pj == 0.370370367);  // 3 × 0.1234567891234, to 1e-9 pJ
}

TEST_CASE("decomposed entries need their decomposition and its basic energies") {
  const auto table = [](const std::string& decompositions, const std::string& ops) {
    return R"({"name": "t", "decompositions": {)" + decompositions + R"(}, "ops": [)" + ops + "]}";
  };
  const std::string exp = R"("exp": {"ops": {"mul": 2, "add": 1}, "derivation": "d"})";
  const std::string basics = R"({"op": "mul", "dtype": "fp32", "pj": 2}, {"op": "add", "dtype": "fp32", "pj": 0.5})";
  const std::string exp_fp32 = R"({"op": "exp", "dtype": "fp32", "decomposed_at": "fp32"})";
  CHECK(TechTable::parse(table(exp, exp_fp32 + ", " + basics), "x").find(OpKind::exp, DType::fp32)->pj == 4.5);
  CHECK_THROWS_WITH(TechTable::parse(table("", exp_fp32 + ", " + basics), "x"),
                    Catch::Contains("ops[0]: 'decomposed_at' but 'decompositions' has no exp"));
  CHECK_THROWS_WITH(TechTable::parse(table(exp, exp_fp32), "x"),
                    Catch::Contains("ops[0]: its decomposition needs the energy of mul on fp32"));
  CHECK_THROWS_WITH(
      TechTable::parse(table(exp, R"({"op": "exp", "dtype": "fp32", "pj": 1, "decomposed_at": "fp32"})"), "x"),
      Catch::Contains("either number 'pj' or string 'decomposed_at'"));
  CHECK_THROWS_WITH(
      TechTable::parse(
          table(R"("exp": {"ops": {"div": 2}, "derivation": "d"}, "div": {"ops": {"mul": 1}, "derivation": "d"})",
                basics),
          "x"),
      Catch::Contains("decompositions.exp uses div, which is itself decomposed"));
  CHECK_THROWS_WITH(TechTable::parse(table(R"("exp": {"ops": {"mul": 0}, "derivation": "d"})", basics), "x"),
                    Catch::Contains("decompositions.exp.ops.mul must be a positive integer"));
  CHECK_THROWS_WITH(TechTable::parse(table(R"("exp": {"ops": {"mul": 1001}, "derivation": "d"})", basics), "x"),
                    Catch::Contains("more than 1000 basic operations"));
  CHECK_THROWS_WITH(TechTable::parse(table(R"("fma": {"ops": {"mul": 1}, "derivation": "d"})", basics), "x"),
                    Catch::Contains("unknown op \"fma\""));
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
                                                              {"op": "mul", "dtype": "fp32", "pj": 2}]})",
                                     "x"),
                    Catch::Contains("duplicate"));
  CHECK_THROWS_WITH(
      TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": 1, "source": 7}]})", "x"),
      Catch::Contains("ops[0]: 'source' must be a string"));
  CHECK_THROWS_WITH(
      TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": 1}], "ops": []})", "x"),
      Catch::Contains("x:1: duplicate key 'ops'"));
  CHECK_THROWS_AS(TechTable::load("/nonexistent/table.json"), Error);
  // A misspelled key is refused with its path, not ignored (a misspelled "decompositions" dropped every one).
  CHECK_THROWS_WITH(
      TechTable::parse(R"({"name": "t", "ops": [{"op": "mul", "dtype": "fp32", "pj": 1, "sourse": "x"}]})", "x"),
      "x: ops[0].sourse: unknown key (did you mean 'source'?)");
  CHECK_THROWS_WITH(TechTable::parse(R"({"name": "t", "ops": [], "decomposition": {}})", "x"),
                    "x: decomposition: unknown key (did you mean 'decompositions'?)");
  CHECK_THROWS_WITH(
      TechTable::parse(R"({"name": "t", "ops": [], "decompositions": {"exp": {"ops": {"mul": 1}, "derivation": "d",
                                                                             "note": "n"}}})",
                       "x"),
      Catch::StartsWith("x: decompositions.exp.note: unknown key (known: ops, derivation)"));
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
