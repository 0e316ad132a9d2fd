// Rendering of count reports.
#include "count_report.hpp"

#include <fmt/format.h>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

Format parse_format(const std::string& text) {
  if (text == "table") return Format::table;
  if (text == "csv") return Format::csv;
  if (text == "json") return Format::json;
  throw Error("unknown format '" + text + "' (valid: table, csv, json)");
}

OpCounts CountReport::total() const {
  OpCounts t;
  for (const auto& r : rows) t += r.counts;
  return t;
}

namespace {

nlohmann::json counts_json(const OpCounts& c, const TechTable& tech) {
  nlohmann::json ops = nlohmann::json::object();
  for (OpKind k : kAllOpKinds)
    for (DType t : kAllDTypes)
      if (auto n = c.ops(k, t)) ops[std::string(name(k))][std::string(name(t))] = n;
  return {{"muls", c.ops(OpKind::mul)},       {"adds", c.ops(OpKind::add)},
          {"energy_pj", tech.energy_pj(c)},   {"ops", ops},
          {"bytes_read", c.read_bytes()},     {"bytes_written", c.written_bytes()}};
}

constexpr const char* kCsvHeader = "name,muls,adds,cmp,exp,div,sqrt,popcount,bytes_read,bytes_written,energy_pj\n";

std::string csv_row(const std::string& name, const OpCounts& c, const TechTable& tech) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{:.6g}\n", name, c.ops(OpKind::mul), c.ops(OpKind::add),
                     c.ops(OpKind::cmp), c.ops(OpKind::exp), c.ops(OpKind::div), c.ops(OpKind::sqrt),
                     c.ops(OpKind::popcount), c.read_bytes(), c.written_bytes(), tech.energy_pj(c));
}

std::string table_row(const std::string& name, const OpCounts& c, const TechTable& tech) {
  return fmt::format("{:<40} {:>17L} {:>17L} {:>15L} {:>13L} {:>13L} {:>16.4g}\n", name, c.ops(OpKind::mul),
                     c.ops(OpKind::add), c.ops(OpKind::cmp), c.ops(OpKind::exp), c.ops(OpKind::div),
                     tech.energy_pj(c));
}

}  // namespace

nlohmann::json to_json(const CountReport& report, const TechTable& tech) {
  nlohmann::json j = counts_json(report.total(), tech);
  j["workload"] = report.workload;
  j["tech_table"] = tech.name();
  j["layers"] = nlohmann::json::array();
  for (const auto& r : report.rows) {
    nlohmann::json row = counts_json(r.counts, tech);
    row["name"] = r.name;
    j["layers"].push_back(std::move(row));
  }
  return j;
}

std::string render(const CountReport& report, const TechTable& tech, Format format, bool per_layer) {
  const OpCounts total = report.total();
  if (format == Format::json) return to_json(report, tech).dump(2) + "\n";
  std::string out;
  if (format == Format::csv) {
    out = kCsvHeader;
    if (per_layer)
      for (const auto& r : report.rows) out += csv_row(r.name, r.counts, tech);
    return out + csv_row("total", total, tech);
  }
  out = fmt::format("workload: {}\nenergy table: {}\n\n", report.workload.dump(), tech.name());
  out += fmt::format("{:<40} {:>17} {:>17} {:>15} {:>13} {:>13} {:>16}\n", "layer", "muls", "adds", "cmp", "exp",
                     "div", "energy_pj");
  if (per_layer)
    for (const auto& r : report.rows) out += table_row(r.name, r.counts, tech);
  out += table_row("total", total, tech);
  out += fmt::format("\ntotal: {:.3f} G muls, {:.3f} G adds, {:.4g} pJ ({:.3f} mJ)\n", total.ops(OpKind::mul) / 1e9,
                     total.ops(OpKind::add) / 1e9, tech.energy_pj(total), tech.energy_pj(total) / 1e9);
  return out;
}

}  // namespace ecosim::cli
