// compare.csv and sweep.csv write a quantity the same way (issue 18, finding 12): the shortest text that reads
// back as the same double (csv_number.hpp), so a latency or an energy prints identically in both reports and
// parses back to the value computed.
#include <catch2/catch.hpp>

#include <sstream>

#include "compare/compare_report.hpp"
#include "sweep/sweep_report.hpp"
#include "sweep/sweep_spec.hpp"

using namespace ecosim;
using namespace ecosim::cli;

namespace {

/// The field under column `name` in the first data row of `csv` (after '#' provenance lines).
std::string field(const std::string& csv, const std::string& name) {
  std::istringstream lines(csv);
  std::string header, row;
  while (std::getline(lines, header) && header.rfind('#', 0) == 0) {}
  std::getline(lines, row);
  std::istringstream titles(header), values(row);
  for (std::string title, value; std::getline(titles, title, ',') && std::getline(values, value, ',');)
    if (title == name) return value;
  FAIL("no column " << name << " in " << header);
  return "";
}

}  // namespace

TEST_CASE("compare.csv and sweep.csv print the same latency and energy identically, exactly", "[csv]") {
  // Values whose 6-significant-digit rounding loses information.
  const double latency_ms = 0.1 + 0.2, energy_pj = 85691.87654321, dram_pj = 1.0 / 3;

  CompareReport report;
  CompareRow compared;
  compared.variant = "msa";
  compared.accel_latency_ms = latency_ms;
  compared.accel.energy.array_pj = energy_pj;
  compared.accel.energy.dram_pj = dram_pj;
  report.rows.push_back(compared);
  const std::string compare_csv = render_csv(report);

  SweepRow swept;
  swept.point = {"layer", "msa", "{}", "closed-form", "bitfusion-45nm", "8"};
  swept.ran = true;
  swept.latency_ms = latency_ms;
  swept.energy.array_pj = energy_pj;
  swept.energy.dram_pj = dram_pj;
  const SweepSpec spec = parse_sweep_spec(
      R"({"axes": {"array.rows": [8]}, "workloads": [{"layer": {"seq": 16}}], "variants": [{"name": "msa"}]})",
      "test.json");
  const std::string sweep_csv = sweep_csv_header(spec) + "\n" + sweep_csv_row(swept) + "\n";

  const std::pair<const char*, const char*> same_quantity[] = {{"accel_latency_ms", "latency_ms"},
                                                               {"accel_array_pj", "array_pj"},
                                                               {"accel_dram_pj", "dram_pj"},
                                                               {"accel_energy_pj", "energy_pj"}};
  for (const auto& [in_compare, in_sweep] : same_quantity) {
    INFO(in_compare << " against " << in_sweep);
    CHECK(field(compare_csv, in_compare) == field(sweep_csv, in_sweep));
  }
  CHECK(std::stod(field(compare_csv, "accel_latency_ms")) == latency_ms);
  CHECK(std::stod(field(compare_csv, "accel_dram_pj")) == dram_pj);
  CHECK(std::stod(field(sweep_csv, "energy_pj")) == energy_pj + dram_pj);
}
