// Internal: a table of op counts (one row per layer or trace record) and its rendering as an aligned
// table, CSV or JSON, with energy from a technology table.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/op_counts.hpp"

namespace ecosim::cli {

enum class Format { table, csv, json };
Format parse_format(const std::string& text);  // throws ecosim::Error

struct CountRow {
  std::string name;
  OpCounts counts;
};

struct CountReport {
  nlohmann::json workload;
  std::vector<CountRow> rows;
  OpCounts total() const;
};

/// JSON: {"workload", "tech_table", "muls", "adds", "energy_pj", "ops", "bytes_read", "bytes_written", "layers": [...]}.
nlohmann::json to_json(const CountReport& report, const TechTable& tech);
std::string render(const CountReport& report, const TechTable& tech, Format format, bool per_layer);

}  // namespace ecosim::cli
