// Accelerator configuration: the built-in values are DESIGN §5's; overrides merge; bad files are rejected.
#include <catch2/catch.hpp>

#include "ecosim/accel_model/config.hpp"
#include "ecosim/ops_counter/error.hpp"

using namespace ecosim;
using namespace ecosim::accel;

TEST_CASE("bitfusion-45nm carries the BitFusion 45 nm values") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  CHECK(c.rows == 16);
  CHECK(c.cols == 32);
  CHECK(c.clock_mhz == 500);
  CHECK(c.buffer(Buffer::weights).bytes == 64 * 1024);
  CHECK(c.buffer(Buffer::inputs).bytes == 32 * 1024);
  CHECK(c.buffer(Buffer::outputs).bytes == 16 * 1024);
  CHECK(c.dram_bits_per_cycle == 192);
  // Derived from the tables (cost_tables_test.cpp has the rest): 4×4 array 3,673.5 µW × 512/16 units / 500 MHz
  // = 235.104 pJ per cycle (the file used to state 235.1); an input bank of 32 KB / 16 = 2 KB writes a 4-byte
  // block for 0.00363853 nJ → 3.63853 pJ / 32 bits = 0.1137 pJ/bit (the file used to state 0.114).
  CHECK(c.array_pj_per_cycle == Approx(3673.5 * 512 / 16 / 500));
  CHECK(c.dram_pj_per_bit == 15);
  CHECK(c.buffer(Buffer::inputs).write_pj_per_bit == Approx(3.63853 / 32));
  CHECK(c.pmax_bits == 8);
  CHECK(c.pmin_bits == 2);
  CHECK(c.accumulator_bits == 32);
  CHECK(c.overlap_units);  // the SystemC model's dynamic effects are on by default
  CHECK(c.prefetch_weights);
  CHECK(parse_config(R"({"systemc": {"overlap": false, "prefetch": false}})", "static.json").overlap_units == false);
}

TEST_CASE("exp, div and sqrt take the cycles of the basic operations the technology table decomposes them into") {
  const auto cycles = [](const AccelConfig& c, OpKind k) { return c.vector_cycles_per_op[std::size_t(k)]; };
  const AccelConfig c = builtin_config("bitfusion-45nm");
  CHECK(cycles(c, OpKind::mul) == 1);
  CHECK(cycles(c, OpKind::add) == 1);
  CHECK(cycles(c, OpKind::exp) == 12);  // 6 mul + 6 add, one lane cycle each
  CHECK(cycles(c, OpKind::div) == 7);   // 5 mul + 2 add
  CHECK(cycles(c, OpKind::sqrt) == 9);  // 7 mul + 2 add
  const AccelConfig slow_mul = parse_config(R"({"vector_unit": {"cycles_per_op": {"mul": 3}}})", "user.json");
  CHECK(cycles(slow_mul, OpKind::exp) == 6 * 3 + 6);
  CHECK(cycles(slow_mul, OpKind::div) == 5 * 3 + 2);
  CHECK(cycles(slow_mul, OpKind::sqrt) == 7 * 3 + 2);
  CHECK_THROWS_WITH(parse_config(R"({"vector_unit": {"cycles_per_op": {"sqrt": 8}}})", "user.json"),
                    Catch::Contains("user.json: vector_unit.cycles_per_op.sqrt: unknown key (known: "));
}

TEST_CASE("a user file overrides only what it names") {
  const AccelConfig c = parse_config(R"({"dram": {"bits_per_cycle": 96}, "array": {"rows": 8}})", "user.json");
  CHECK(c.dram_bits_per_cycle == 96);
  CHECK(c.rows == 8);
  CHECK(c.cols == 32);
  CHECK(c.dram_pj_per_bit == 15);
}

TEST_CASE("configuration errors name the key and the problem") {
  auto message = [](const char* text) {
    try {
      parse_config(text, "bad.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message(R"({"array": {"rowz": 4}})"),
             Catch::Contains("bad.json: array.rowz: unknown key (did you mean 'rows'?)"));
  CHECK_THAT(message(R"({"array": {"rows": 0}})"), Catch::Contains("array.rows"));
  CHECK_THAT(message(R"({"buffers": {"outputs": {"bytes": 64}}})"), Catch::Contains("too small for one tile"));
  CHECK_THAT(message(R"({"clock_mhz": -5})"), Catch::Contains("clock_mhz"));
  CHECK_THAT(message(R"({"mapping": {"float_operand_bits": 3}})"), Catch::Contains("float_operand_bits"));
  CHECK_THAT(message(R"({"mapping": {"binary_codes": "fpga"}})"), Catch::Contains("binary_codes"));
  CHECK_THAT(message(R"({"systemc": {"overlap": 1}})"), Catch::Contains("systemc.overlap"));
  CHECK_THAT(message(R"({"systemc": {"quantum_cycles": 0}})"), Catch::Contains("systemc.quantum_cycles"));
  // partial sums narrower than one product of the widest operands (16 × 16 bits) would wrap
  CHECK_THAT(message(R"({"array": {"pmax_bits": 16, "accumulator_bits": 24}})"),
             Catch::Contains("array.accumulator_bits: must hold a product of two 16-bit operands") &&
                 Catch::Contains("at least 32"));
  CHECK_THAT(message(R"({"array": {"accumulator_bits": 16}, "mapping": {"float_operand_bits": 16}})"),
             Catch::Contains("array.accumulator_bits: must hold a product of two 16-bit operands"));
  CHECK_NOTHROW(parse_config(R"({"array": {"pmax_bits": 16, "accumulator_bits": 32}})", "good.json"));
  CHECK_THAT(message("[1, 2]"), Catch::Contains("JSON object"));
  CHECK_THAT(message("{"), Catch::Contains("not valid JSON"));
  CHECK_THROWS_AS(builtin_config("tpu-v9"), Error);
}
