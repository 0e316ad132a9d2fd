// sweep.csv and sweep.json: rendering, and reading rows back for --resume.
#include "sweep_report.hpp"

#include <fmt/core.h>
#include <charconv>
#include <sstream>

#include "csv_number.hpp"
#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

namespace {

constexpr const char* kResultColumns =
    "area_mm2,latency_ms,cycles,energy_pj,array_pj,vector_pj,sram_weights_pj,sram_inputs_pj,sram_outputs_pj,"
    "dram_pj,leakage_pj,array_utilisation,error";
constexpr std::size_t kPointColumns = 5;  // workload, variant, parameters, engine, accelerator
constexpr std::size_t kResultCount = 13;  // the columns of kResultColumns

/// The fields of one CSV line (quotes as csv_field() writes them); false for an unterminated quote.
bool split(const std::string& line, std::vector<std::string>& fields) {
  fields.assign(1, "");
  bool in_quotes = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_quotes && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      in_quotes = !in_quotes;
    } else if (c == ',' && !in_quotes) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return !in_quotes;
}

template <typename T>
bool number(const std::string& text, T& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

/// A row from its fields; false when a field is not what sweep_csv_row writes.
bool parse_row(const std::vector<std::string>& f, std::size_t axes, SweepRow& row) {
  const std::size_t first_result = 1 + kPointColumns + axes;
  if (f.size() != first_result + kResultCount || !number(f[0], row.index) || !number(f[first_result], row.area_mm2))
    return false;
  row.point.assign(f.begin() + 1, f.begin() + static_cast<std::ptrdiff_t>(first_result));
  row.error = f.back();
  row.ran = row.error.empty();
  if (!row.ran) return true;
  auto& e = row.energy;
  double total = 0;
  const std::string* r = &f[first_result + 1];
  return number(r[0], row.latency_ms) && number(r[1], row.cycles) && number(r[2], total) && number(r[3], e.array_pj) &&
         number(r[4], e.vector_pj) && number(r[5], e.sram_pj[0]) && number(r[6], e.sram_pj[1]) &&
         number(r[7], e.sram_pj[2]) && number(r[8], e.dram_pj) && number(r[9], e.leakage_pj) &&
         number(r[10], row.array_utilisation);
}

}  // namespace

std::string sweep_csv_header(const SweepSpec& spec) {
  std::string header = "index,workload,variant,parameters,engine,accelerator";
  for (const SweepAxis& a : spec.axes) header += "," + csv_field(a.key);
  return header + "," + kResultColumns;
}

std::string sweep_csv_row(const SweepRow& row) {
  std::string line = fmt::format("{}", row.index);
  for (const std::string& p : row.point) line += "," + csv_field(p);
  line += "," + csv_number(row.area_mm2);
  if (!row.ran) return line + std::string(kResultCount - 2, ',') + "," + csv_field(row.error);
  const auto& e = row.energy;
  return line + fmt::format(",{},{},{},{},{},{},{},{},{},{},{},", csv_number(row.latency_ms), row.cycles,
                            csv_number(e.total_pj()), csv_number(e.array_pj), csv_number(e.vector_pj),
                            csv_number(e.sram_pj[0]), csv_number(e.sram_pj[1]), csv_number(e.sram_pj[2]),
                            csv_number(e.dram_pj), csv_number(e.leakage_pj), csv_number(row.array_utilisation));
}

std::uint64_t max_sweep_csv_bytes(const SweepSpec& spec) {
  constexpr std::uint64_t kMaxLineBytes = 16 << 10;  // numbers, axis values and one error message
  return (spec.points() + 1) * kMaxLineBytes;
}

std::map<std::size_t, SweepRow> read_sweep_csv(const std::string& text, const SweepSpec& spec,
                                               const std::string& origin) {
  std::map<std::size_t, SweepRow> rows;
  std::istringstream lines(text);
  std::string line;
  if (!std::getline(lines, line) || line != sweep_csv_header(spec))
    throw Error(origin + ": its columns are not this spec's (written by another spec?); use another --out");
  std::vector<std::string> fields;
  for (std::size_t number = 2; std::getline(lines, line); ++number) {
    SweepRow row;
    const bool last = lines.peek() == std::char_traits<char>::eof();
    if (!split(line, fields) || !parse_row(fields, spec.axes.size(), row)) {
      if (last) break;  // cut short by a killed run: the point runs again
      throw Error(fmt::format("{}:{}: not a row of a sweep", origin, number));
    }
    if (row.index >= spec.points())
      throw Error(fmt::format("{}:{}: point {} is not in this spec", origin, number, row.index));
    rows[row.index] = std::move(row);
  }
  return rows;
}

std::string render_sweep_csv(const SweepSpec& spec, const std::map<std::size_t, SweepRow>& rows) {
  std::string csv = sweep_csv_header(spec) + "\n";
  for (const auto& [index, row] : rows) csv += sweep_csv_row(row) + "\n";
  return csv;
}

nlohmann::ordered_json sweep_json(const SweepSpec& spec, const std::map<std::size_t, SweepRow>& rows,
                                  const nlohmann::json& pruned, const nlohmann::ordered_json& provenance) {
  nlohmann::ordered_json j;
  j["spec"] = spec.document;
  j["engine"] = accel::name(spec.engine);
  j["accelerator"] = spec.accelerator;
  j["points"] = spec.points();
  j["pruned"] = pruned;
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& [index, row] : rows) {
    nlohmann::ordered_json r{
        {"index", index}, {"workload", row.point[0]}, {"variant", row.point[1]}, {"parameters", row.point[2]}};
    const std::vector<nlohmann::json> axes = spec.axis_points(index % spec.configurations());  // as given
    for (std::size_t a = 0; a < spec.axes.size(); ++a) r[spec.axes[a].key] = axes[a];
    r["area_mm2"] = row.area_mm2;
    if (row.ran) {
      const auto& e = row.energy;
      r.update({{"latency_ms", row.latency_ms},
                {"cycles", row.cycles},
                {"energy_pj", e.total_pj()},
                {"array_pj", e.array_pj},
                {"vector_pj", e.vector_pj},
                {"sram_weights_pj", e.sram_pj[0]},
                {"sram_inputs_pj", e.sram_pj[1]},
                {"sram_outputs_pj", e.sram_pj[2]},
                {"dram_pj", e.dram_pj},
                {"leakage_pj", e.leakage_pj},
                {"array_utilisation", row.array_utilisation}});
    } else {
      r["error"] = row.error;
    }
    j["rows"].push_back(std::move(r));
  }
  j["provenance"] = provenance;
  return j;
}

}  // namespace ecosim::cli
