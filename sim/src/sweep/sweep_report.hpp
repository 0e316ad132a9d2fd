// Internal: the rows of a design-space sweep and their files — sweep.csv (one row per point: its index, workload,
// variant, parameters and axis values, then area, latency, energy by component, utilisation and an error) and
// sweep.json — and the reading of an earlier sweep.csv, whose rows --resume keeps.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/accel_model/result.hpp"
#include "sweep_spec.hpp"

namespace ecosim::cli {

struct SweepRow {
  std::size_t index = 0;           // the point's place in the spec's enumeration
  std::vector<std::string> point;  // workload, variant, parameters, then one value per axis
  double area_mm2 = 0;             // always known (the configuration was built)
  bool ran = false;                // false: `error` says why the point has no results
  double latency_ms = 0;
  std::uint64_t cycles = 0;
  accel::EnergyBreakdown energy;
  double array_utilisation = 0;
  std::string error;
};

/// The CSV's column titles for `spec`: index, workload, variant, parameters, the axis keys, then the results.
std::string sweep_csv_header(const SweepSpec& spec);
/// One row (no newline); numbers in their shortest exact form, so a row read back renders identically.
std::string sweep_csv_row(const SweepRow& row);
/// The rows of an earlier sweep.csv written for `spec`, by index. Throws ecosim::Error when its header differs
/// (another spec); a last line cut short by a killed run is ignored.
/// The largest sweep.csv `spec` can have (its header and every point's row at the longest a row may be):
/// --resume reads no more.
std::uint64_t max_sweep_csv_bytes(const SweepSpec& spec);
std::map<std::size_t, SweepRow> read_sweep_csv(const std::string& text, const SweepSpec& spec,
                                               const std::string& origin);
/// The whole CSV: header and rows in index order.
std::string render_sweep_csv(const SweepSpec& spec, const std::map<std::size_t, SweepRow>& rows);
/// {"spec", "engine", "accelerator", "points", "pruned": [...], "rows": [{...}, ...], "provenance"}.
nlohmann::ordered_json sweep_json(const SweepSpec& spec, const std::map<std::size_t, SweepRow>& rows,
                                  const nlohmann::json& pruned, const nlohmann::ordered_json& provenance);

}  // namespace ecosim::cli
