// Synthesised fusion-unit table: strict reading of accel_model/data/bitfusion_45nm_synthesis.json and the
// scaling of its arrays to a configuration's size and precision range.
#include <fmt/format.h>

#include "ecosim/accel_model/cost_tables.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"

namespace ecosim::embedded {
std::string_view accel_bitfusion_45nm_synthesis();
}

namespace ecosim::accel {

namespace {

// Plausible values of a table entry.
constexpr Range<double> kClockMhz{1, 10'000, " MHz"};
constexpr Range<std::uint64_t> kPrecisionBits{1, 64, " bits"};
constexpr Range<std::uint64_t> kDimension{1, 4096, " fusion units"};
constexpr Range<double> kAreaUm2{1e-3, 1e9, " um2"};
constexpr Range<double> kPowerUw{1e-6, 1e9, " uW"};

constexpr double kMm2PerUm2 = 1e-6, kMwPerUw = 1e-3;

}  // namespace

const SynthesisTable& SynthesisTable::builtin_45nm() {
  static const SynthesisTable table =
      parse(embedded::accel_bitfusion_45nm_synthesis(), "builtin bitfusion_45nm_synthesis.json");
  return table;
}

SynthesisTable SynthesisTable::parse(std::string_view json_text, const std::string& origin) {
  const nlohmann::json doc = parse_json(json_text, origin);
  const JsonReader r(doc, origin);
  r.exact_keys({"source", "clock_mhz", "pmax_bits", "pmin_bits", "scale_from", "arrays", "fusion_units"});
  r.text("source");
  SynthesisTable t;
  t.clock_mhz_ = r.number("clock_mhz", kClockMhz);
  t.pmax_bits_ = r.count("pmax_bits", kPrecisionBits);
  t.pmin_bits_ = r.count("pmin_bits", kPrecisionBits);
  const JsonReader scale(r.at("scale_from"), origin + ": scale_from");
  scale.exact_keys({"rows", "cols"});
  const std::uint64_t ref_rows = scale.count("rows", kDimension), ref_cols = scale.count("cols", kDimension);
  bool have_reference = false, have_single = false;
  const nlohmann::json& arrays = r.list("arrays");
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const JsonReader a(arrays[i], fmt::format("{}: arrays[{}]", origin, i));
    a.exact_keys({"rows", "cols", "area_um2", "leakage_uw", "dynamic_uw"});
    const Synthesised s{a.count("rows", kDimension), a.count("cols", kDimension), a.number("area_um2", kAreaUm2),
                        a.number("leakage_uw", kPowerUw), a.number("dynamic_uw", kPowerUw)};
    for (const Synthesised& listed : t.arrays_)
      if (listed.rows == s.rows && listed.cols == s.cols)
        a.fail("rows", fmt::format("{}×{} listed twice", s.rows, s.cols));
    if (s.rows == ref_rows && s.cols == ref_cols) t.reference_ = s, have_reference = true;
    if (s.rows == 1 && s.cols == 1) t.single_ = s, have_single = true;
    t.arrays_.push_back(s);
  }
  if (!have_reference) r.fail("scale_from", fmt::format("no {}×{} array in 'arrays'", ref_rows, ref_cols));
  if (!have_single) r.fail("arrays", "needs the 1×1 array (the reference for other precision ranges)");
  const nlohmann::json& units = r.list("fusion_units");
  for (std::size_t i = 0; i < units.size(); ++i) {
    const JsonReader u(units[i], fmt::format("{}: fusion_units[{}]", origin, i));
    u.exact_keys({"pmax_bits", "pmin_bits", "area_um2", "total_uw"});
    t.fusion_units_.push_back({u.count("pmax_bits", kPrecisionBits), u.count("pmin_bits", kPrecisionBits),
                               u.number("area_um2", kAreaUm2), u.number("total_uw", kPowerUw)});
  }
  return t;
}

ArrayCost SynthesisTable::array(std::uint64_t rows, std::uint64_t cols, std::uint64_t pmax_bits,
                                std::uint64_t pmin_bits) const {
  double area_factor = 1, power_factor = 1;
  if (pmax_bits != pmax_bits_ || pmin_bits != pmin_bits_) {
    const FusionUnit* unit = nullptr;
    std::string listed = fmt::format("{}/{}", pmax_bits_, pmin_bits_);
    for (const FusionUnit& u : fusion_units_) {
      if (u.pmax_bits == pmax_bits && u.pmin_bits == pmin_bits) unit = &u;
      listed += fmt::format(", {}/{}", u.pmax_bits, u.pmin_bits);
    }
    if (!unit)
      throw Error(fmt::format("no synthesis result for the precision range {}/{} bits (pmax/pmin; listed: {})",
                              pmax_bits, pmin_bits, listed));
    area_factor = unit->area_um2 / single_.area_um2;
    power_factor = unit->total_uw / (single_.leakage_uw + single_.dynamic_uw);
  }
  // the array synthesised at this size where the table lists it (as the BitFusion simulator looks it up), else
  // the `scale_from` array scaled by the unit count
  const Synthesised* base = &reference_;
  for (const Synthesised& s : arrays_)
    if (s.rows == rows && s.cols == cols) base = &s;
  const double units = double(rows * cols) / double(base->rows * base->cols);
  // µW / MHz = pJ per cycle: energy per cycle at the synthesis clock (dynamic energy does not depend on it).
  return {base->dynamic_uw * units * power_factor / clock_mhz_, base->leakage_uw * units * power_factor * kMwPerUw,
          base->area_um2 * units * area_factor * kMm2PerUm2};
}

}  // namespace ecosim::accel
