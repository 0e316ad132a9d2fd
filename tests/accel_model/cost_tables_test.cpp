// Energy, leakage and area derived from the 45 nm cost tables (shared/data/bitfusion_costs.md): the default
// configuration against numbers computed by hand from the tables, log–log interpolation and warned
// extrapolation of the CACTI banks, array energy per MAC independent of the array size, area growing with the
// array and the buffers, leakage energy = leakage power × simulated time, and strict reading of the tables.
#include <catch2/catch.hpp>

#include <cmath>

#include "accel_test_support.hpp"
#include "ecosim/accel_model/cost_tables.hpp"

using namespace ecosim;
using namespace ecosim::accel;
using namespace ecosim::test;
using Catch::Matchers::Contains;

namespace {

/// x rounded to 3 significant digits (as bitfusion_costs.md quotes the per-bit values).
double three_digits(double x) {
  const double scale = std::pow(10.0, 2 - std::floor(std::log10(x)));
  return std::round(x * scale) / scale;
}

AccelConfig config(const char* json) { return parse_config(json, "test.json"); }

}  // namespace

TEST_CASE("the default configuration derives the BitFusion per-bit and per-cycle energies from the tables") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  CHECK(c.cost_warnings.empty());
  // 16×32 array of 4×4-synthesised units: 3,673.5 µW × 32 / 500 MHz = 235.104 pJ per cycle; 27,752.8 µm² × 32;
  // 949.24 µW × 32.
  CHECK(c.array_pj_per_cycle == Approx(235.104));
  CHECK(c.array_area_mm2 == Approx(0.8880896));
  CHECK(c.array_leakage_mw == Approx(30.37568));
  // Each buffer's banks (weights rows·cols, inputs rows, outputs cols with a read-write port) of 64 KB / 512 =
  // 128 B, 32 KB / 16 = 2 KB, 16 KB / 32 = 512 B: the CACTI row's nJ per 32-bit access × 1000 / 32 bits, and
  // its leakage and area per bank.
  struct Expected {
    Buffer buffer;
    std::uint64_t banks;
    double read_pj_per_bit, write_pj_per_bit, bank_leakage_mw, bank_area_mm2;
  };
  const Expected expected[] = {{Buffer::weights, 512, 0.0213656, 0.0289162, 0.249588, 0.00149898},
                               {Buffer::inputs, 16, 0.0594744, 0.1137041, 3.22997, 0.015132},
                               {Buffer::outputs, 32, 0.0331553, 0.0730841, 1.03183, 0.00760331}};
  for (const Expected& e : expected) {
    INFO(name(e.buffer));
    const BufferConfig& b = c.buffer(e.buffer);
    CHECK(b.banks == e.banks);
    CHECK(b.read_pj_per_bit == Approx(e.read_pj_per_bit).epsilon(1e-5));
    CHECK(b.write_pj_per_bit == Approx(e.write_pj_per_bit).epsilon(1e-5));
    CHECK(b.leakage_mw == Approx(double(e.banks) * e.bank_leakage_mw));
    CHECK(b.area_mm2 == Approx(double(e.banks) * e.bank_area_mm2));
  }
  const BufferConfig& w = c.buffer(Buffer::weights);
  const BufferConfig& in = c.buffer(Buffer::inputs);
  const BufferConfig& out = c.buffer(Buffer::outputs);
  // The values bitfusion_costs.md quotes (and ecosim used before they were derived).
  CHECK(three_digits(w.read_pj_per_bit) == Approx(0.0214));
  CHECK(three_digits(in.read_pj_per_bit) == Approx(0.0595));
  CHECK(three_digits(out.read_pj_per_bit) == Approx(0.0332));
  CHECK(three_digits(c.array_area_mm2) == Approx(0.888));
  CHECK(c.leakage_mw() == Approx(30.37568 + 512 * 0.249588 + 16 * 3.22997 + 32 * 1.03183));
  CHECK(c.area_mm2() == Approx(0.8880896 + 512 * 0.00149898 + 16 * 0.015132 + 32 * 0.00760331));
}

TEST_CASE("bank costs between table sizes are interpolated log-log") {
  std::string warning;
  // At the geometric mean of 1 KB and 2 KB every quantity is the geometric mean of the two rows.
  const SramBankCost mid = CactiTable::builtin_45nm().bank(std::sqrt(1024.0 * 2048.0), false, warning);
  CHECK(mid.read_pj == Approx(std::sqrt(1.13324 * 1.90318)));
  CHECK(mid.write_pj == Approx(std::sqrt(3.29596 * 3.63853)));
  CHECK(mid.leakage_mw == Approx(std::sqrt(1.78934 * 3.22997)));
  CHECK(mid.area_mm2 == Approx(std::sqrt(0.00882362 * 0.015132)));
  CHECK(warning.empty());
  // Through a configuration: 128 KB of weights in 512 banks of 256 B, a third of the way (in log) from the
  // 128 B row to the 1 KB row: 0.683701 pJ × (1.13324 / 0.683701)^(1/3) = 0.80913 pJ per 32-bit read.
  const AccelConfig c = config(R"({"buffers": {"weights": {"bytes": 131072}}})");
  CHECK(c.buffer(Buffer::weights).read_pj_per_bit == Approx(0.80913 / 32).epsilon(1e-5));
  CHECK(c.cost_warnings.empty());
}

TEST_CASE("a bank outside the CACTI table is extrapolated with a warning naming its size") {
  // 512 KB of inputs in 16 banks of 32 KB: one doubling beyond the 16 KB row, along the 8 KB – 16 KB line.
  const AccelConfig c = config(R"({"buffers": {"inputs": {"bytes": 524288}}})");
  REQUIRE(c.cost_warnings.size() == 1);
  CHECK_THAT(c.cost_warnings[0], Contains("buffers.inputs") && Contains("32768 bytes") && Contains("extrapolated"));
  CHECK(c.buffer(Buffer::inputs).read_pj_per_bit == Approx(9.9817 * 9.9817 / 6.39163 / 32));
  // Below the table: 16×32 banks of 64 B (32 KB of weights).
  const AccelConfig small = config(R"({"buffers": {"weights": {"bytes": 32768}}})");
  REQUIRE(small.cost_warnings.size() == 1);
  CHECK_THAT(small.cost_warnings[0], Contains("buffers.weights") && Contains("64 bytes"));
}

TEST_CASE("array energy per MAC does not fall as the array grows") {
  const AccelConfig small = builtin_config("bitfusion-45nm");
  const AccelConfig big = config(R"({"array": {"rows": 32, "cols": 64}})");
  // Per fusion unit and cycle the energy is the same: 235.104 pJ / 512 units.
  CHECK(big.array_pj_per_cycle / double(big.rows * big.cols) ==
        Approx(small.array_pj_per_cycle / double(small.rows * small.cols)));
  CHECK(big.array_pj_per_cycle == Approx(4 * 235.104));
  // A GEMM that fills both arrays: a quarter of the cycles at four times the energy per cycle.
  const OpRecord op = gemm(1, 1024, 256, 256, DType::int8);
  const ReplayResult on_small = replay_cf({op}, small);
  const ReplayResult on_big = replay_cf({op}, big);
  REQUIRE(on_small.total.macs == on_big.total.macs);
  REQUIRE(on_small.total.array_cycles == 4 * on_big.total.array_cycles);
  CHECK(on_big.total.energy.array_pj / double(on_big.total.macs) ==
        Approx(on_small.total.energy.array_pj / double(on_small.total.macs)));
}

TEST_CASE("area grows with the array and with each buffer") {
  const AccelConfig base = builtin_config("bitfusion-45nm");
  const AccelConfig big_array = config(R"({"array": {"rows": 32, "cols": 64}})");
  CHECK(big_array.array_area_mm2 == Approx(4 * base.array_area_mm2));
  CHECK(big_array.area_mm2() > base.area_mm2());
  for (const char* name : {"weights", "inputs", "outputs"}) {
    INFO(name);
    nlohmann::json doubled;
    doubled["buffers"][name]["bytes"] = base.effective["buffers"][name]["bytes"].get<std::uint64_t>() * 2;
    const AccelConfig bigger = parse_config(doubled.dump(), "test.json");
    CHECK(bigger.area_mm2() > base.area_mm2());
    CHECK(bigger.leakage_mw() > base.leakage_mw());
  }
}

TEST_CASE("leakage energy is the leakage power times the simulated time") {
  const AccelConfig c = builtin_config("bitfusion-45nm");
  const auto ops = attention_layer(AttentionVariant::msa, 1, 256, 32);
  for (const ReplayResult& r : {replay_sc(ops, c), replay_cf(ops, c)}) {
    INFO(r.engine);
    // mW × ms = µJ = 1e6 pJ.
    CHECK(r.total.energy.leakage_pj == Approx(c.leakage_mw() * r.latency_ms() * 1e6));
    CHECK(r.leakage_mw == c.leakage_mw());
    CHECK(r.area.total_mm2() == Approx(c.area_mm2()));
    CHECK(r.total.energy.total_pj() > r.total.energy.leakage_pj);
  }
}

TEST_CASE("a precision range other than 8/2 scales the array by the single fusion unit's synthesis") {
  const AccelConfig wide = config(R"({"array": {"pmax_bits": 16, "pmin_bits": 2}})");
  // 16/2 unit: 7,492.4 µm², 1,440.4 µW in total; the 8/2 (1×1) unit: 1,733.1 µm², 64.3 + 280.0 µW.
  CHECK(wide.array_pj_per_cycle == Approx(235.104 * 1440.4 / 344.3));
  CHECK(wide.array_leakage_mw == Approx(30.37568 * 1440.4 / 344.3));
  CHECK(wide.array_area_mm2 == Approx(0.8880896 * 7492.4 / 1733.1));
  CHECK_THROWS_WITH(config(R"({"array": {"pmax_bits": 8, "pmin_bits": 4}})"),
                    Contains("array.pmax_bits/pmin_bits") && Contains("8/4") && Contains("16/2"));
}

TEST_CASE("an array size the synthesis table lists is its own synthesis result, not the 4×4 scaled") {
  // bitfusion_costs.md's 1×16 array: 29,352.6 µm², 998.3 µW leakage, 4,049.8 µW dynamic at 500 MHz (the 4×4
  // scaled to 16 units would be 3,673.5 µW: 9 % less energy per cycle).
  const AccelConfig row = config(R"({"array": {"rows": 1, "cols": 16}})");
  CHECK(row.array_pj_per_cycle == Approx(4049.8 / 500));
  CHECK(row.array_leakage_mw == Approx(0.9983));
  CHECK(row.array_area_mm2 == Approx(0.0293526));
  // and its 16×1 transpose is a different synthesis result
  const AccelConfig column = config(R"({"array": {"rows": 16, "cols": 1}})");
  CHECK(column.array_pj_per_cycle == Approx(3758.3 / 500));
  // a size not listed scales the 4×4 array: 1×8 is half of it
  const AccelConfig half = config(R"({"array": {"rows": 1, "cols": 8}})");
  CHECK(half.array_pj_per_cycle == Approx(3673.5 / 2 / 500));
  // at another precision range the listed array is scaled by the single units' ratio as the 4×4 is
  const AccelConfig wide = config(R"({"array": {"rows": 1, "cols": 16, "pmax_bits": 16, "pmin_bits": 2}})");
  CHECK(wide.array_pj_per_cycle == Approx(4049.8 / 500 * 1440.4 / 344.3));
}

TEST_CASE("a clock faster than the buffers' banks can be read is warned of") {
  // the default banks: weights 128 B (0.165 ns), inputs 2 KB (0.295 ns), outputs 512 B (0.227 ns)
  CHECK(config(R"({"clock_mhz": 3000})").cost_warnings.empty());  // a 0.333 ns cycle
  const AccelConfig fast = config(R"({"clock_mhz": 4000})");      // 0.25 ns: the input banks only
  REQUIRE(fast.cost_warnings.size() == 1);
  CHECK_THAT(fast.cost_warnings[0], Contains("clock_mhz 4000") && Contains("buffers.inputs bank's access (0.295 ns"));
  CHECK(config(R"({"clock_mhz": 10000})").cost_warnings.size() == 3);
}

TEST_CASE("cost tables are read strictly") {
  const std::string row = R"({"bytes": 128, "rw_port": false, "read_nj": 1, "write_nj": 1, "leakage_mw": 1,
                              "area_mm2": 1, "access_ns": 1})";
  const std::string rw_row = R"({"bytes": 512, "rw_port": true, "read_nj": 1, "write_nj": 1, "leakage_mw": 1,
                                 "area_mm2": 1, "access_ns": 1})";
  auto cacti = [&](const std::string& banks) {
    return CactiTable::parse(R"({"source": "s", "block_bytes": 4, "banks": [)" + banks + "]}", "t.json");
  };
  CHECK_NOTHROW(cacti(row + "," + rw_row + "," + rw_row.substr(0, 10) + "1024" + rw_row.substr(13) + "," +
                      row.substr(0, 10) + "256" + row.substr(13)));
  CHECK_THROWS_WITH(cacti(row + "," + rw_row), Contains("at least two bank sizes"));
  CHECK_THROWS_WITH(cacti(row + "," + row), Contains("listed twice"));
  std::string negative = row;
  negative.replace(negative.find("\"read_nj\": 1"), 12, "\"read_nj\": -1");
  CHECK_THROWS_WITH(cacti(negative), Contains("t.json: banks[0]: read_nj: -1 is out of range"));
  std::string extra = row;
  extra.insert(1, "\"colour\": 1, ");
  CHECK_THROWS_WITH(cacti(extra), Contains("banks[0]: colour: unknown key"));
  CHECK_THROWS_WITH(cacti("7," + rw_row), Contains("t.json: banks[0]: must be a JSON object"));
  CHECK_THROWS_WITH(SynthesisTable::parse(R"({"source": "s", "clock_mhz": 500, "pmax_bits": 8, "pmin_bits": 2,
      "scale_from": {"rows": 4, "cols": 4}, "arrays": [{"rows": 1, "cols": 1, "area_um2": 1, "leakage_uw": 1,
      "dynamic_uw": 1}], "fusion_units": []})",
                                          "s.json"),
                    Contains("s.json: scale_from: no 4×4 array"));
  CHECK_THROWS_WITH(SynthesisTable::parse(R"({"source": "s", "clock_mhz": 500, "pmax_bits": 8, "pmin_bits": 2,
      "scale_from": {"rows": 1, "cols": 1}, "arrays": [{"rows": 1, "cols": 1, "area_um2": 1, "leakage_uw": 1,
      "dynamic_uw": 1}, {"rows": 1, "cols": 1, "area_um2": 2, "leakage_uw": 1, "dynamic_uw": 1}],
      "fusion_units": []})",
                                          "s.json"),
                    Contains("s.json: arrays[1]: rows: 1×1 listed twice"));
}
