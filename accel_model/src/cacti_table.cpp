// CACTI SRAM bank table: strict reading of accel_model/data/cacti_45nm_sram.json and log–log interpolation
// (and warned extrapolation) in bank size.
#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "ecosim/accel_model/cost_tables.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"

namespace ecosim::embedded {
std::string_view accel_cacti_45nm_sram();
}

namespace ecosim::accel {

namespace {

// Plausible values of a table entry; the quantities are logged, so they must be positive.
constexpr Range<std::uint64_t> kBlockBytes{1, 1024, " bytes"};
constexpr Range<double> kBankBytes{1, double(std::uint64_t{1} << 30), " bytes"};
constexpr Range<double> kAccessNj{1e-12, 1e3, " nJ"};
constexpr Range<double> kLeakageMw{1e-12, 1e5, " mW"};
constexpr Range<double> kAreaMm2{1e-12, 1e4, " mm2"};
constexpr Range<double> kAccessNs{1e-6, 1e6, " ns"};

constexpr double kPjPerNj = 1e3;

double log_log(double x, double x0, double y0, double x1, double y1) {
  return std::exp(std::log(y0) +
                  (std::log(y1) - std::log(y0)) * (std::log(x) - std::log(x0)) / (std::log(x1) - std::log(x0)));
}

}  // namespace

const CactiTable& CactiTable::builtin_45nm() {
  static const CactiTable table = parse(embedded::accel_cacti_45nm_sram(), "builtin cacti_45nm_sram.json");
  return table;
}

CactiTable CactiTable::parse(std::string_view json_text, const std::string& origin) {
  const nlohmann::json doc = parse_json(json_text, origin);
  const JsonReader r(doc, origin);
  r.exact_keys({"source", "block_bytes", "banks"});
  r.text("source");
  CactiTable t;
  t.origin_ = origin;
  t.block_bits_ = r.count("block_bytes", kBlockBytes) * 8;
  const nlohmann::json& banks = r.list("banks");
  for (std::size_t i = 0; i < banks.size(); ++i) {
    const JsonReader b(banks[i], fmt::format("{}: banks[{}]", origin, i));
    b.exact_keys({"bytes", "rw_port", "read_nj", "write_nj", "leakage_mw", "area_mm2", "access_ns"});
    Row row;
    row.bytes = b.number("bytes", kBankBytes);
    row.rw_port = b.flag("rw_port");
    row.cost = {b.number("read_nj", kAccessNj) * kPjPerNj, b.number("write_nj", kAccessNj) * kPjPerNj,
                b.number("leakage_mw", kLeakageMw), b.number("area_mm2", kAreaMm2),
                b.number("access_ns", kAccessNs)};  // timing comes from the clock; this bounds it
    for (const Row& other : t.rows_)
      if (other.bytes == row.bytes && other.rw_port == row.rw_port)
        b.fail("bytes", fmt::format("{} bytes is listed twice for the same port kind", row.bytes));
    t.rows_.push_back(row);
  }
  std::sort(t.rows_.begin(), t.rows_.end(), [](const Row& a, const Row& b) { return a.bytes < b.bytes; });
  for (bool rw_port : {false, true})
    if (std::count_if(t.rows_.begin(), t.rows_.end(), [&](const Row& row) { return row.rw_port == rw_port; }) < 2)
      r.fail("banks", fmt::format("needs at least two bank sizes with rw_port {} to interpolate", rw_port));
  return t;
}

SramBankCost CactiTable::bank(double bytes, bool rw_port, std::string& warning) const {
  std::vector<const Row*> kind;
  for (const Row& row : rows_)
    if (row.rw_port == rw_port) kind.push_back(&row);
  for (const Row* row : kind)
    if (row->bytes == bytes) return row->cost;
  // The two sizes around `bytes`, or the two nearest when it lies outside.
  const auto above = std::find_if(kind.begin(), kind.end(), [&](const Row* row) { return row->bytes > bytes; });
  const std::size_t hi = std::clamp<std::size_t>(std::size_t(above - kind.begin()), 1, kind.size() - 1);
  const Row& a = *kind[hi - 1];
  const Row& b = *kind[hi];
  if (bytes < kind.front()->bytes || bytes > kind.back()->bytes)
    warning = fmt::format(
        "{}: a bank of {} bytes ({} read-write port) lies outside the table's {}–{} bytes; its "
        "energy, leakage and area are extrapolated log–log",
        origin_, bytes, rw_port ? "with" : "without", kind.front()->bytes, kind.back()->bytes);
  auto at = [&](double SramBankCost::*field) { return log_log(bytes, a.bytes, a.cost.*field, b.bytes, b.cost.*field); };
  return {at(&SramBankCost::read_pj), at(&SramBankCost::write_pj), at(&SramBankCost::leakage_mw),
          at(&SramBankCost::area_mm2), at(&SramBankCost::access_ns)};
}

}  // namespace ecosim::accel
