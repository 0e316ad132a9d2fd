// Internal: a report of op counts (one row per layer or trace record) printed as the rows arrive — aligned
// table, CSV or JSON, with energy from a technology table — keeping only the running total.
#pragma once
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/energy.hpp"
#include "ecosim/ops_counter/op_counts.hpp"
#include "json_stream.hpp"

namespace ecosim::cli {

enum class Format { table, csv, json };
Format parse_format(const std::string& text);  // throws ecosim::Error

/// {"muls", "adds", "energy_pj", "ops" (count per kind and data type), "bytes_read", "bytes_written"}.
nlohmann::json counts_json(const OpCounts& c, const TechTable& tech);

/// JSON: {"workload", "tech_table", "provenance", "muls", "adds", "energy_pj", "ops", "bytes_read",
/// "bytes_written"} (for a decoder also "params", "kv_cache_bytes", "macs_per_token", …: set_decoder_facts), and with
/// per_layer "layers": [...] (each row's counts and "name"), written row by row. CSV is headed by the provenance's "#
/// key: value" lines, and the table closed by their short form (the technology table by its name).
class CountPrinter {
 public:
  /// Nothing is printed before the first row is (so an error before it leaves no output).
  CountPrinter(std::ostream& out, const nlohmann::json& workload, const TechTable& tech, Format format, bool per_layer,
               const nlohmann::ordered_json& provenance);
  /// Adds a row to the total; with per_layer, prints it.
  void row(const std::string& name, const OpCounts& counts);
  /// A decoder's figures (DecoderFacts::to_json): JSON members beside the totals, a `decoder:` line in a table, a
  /// `# key: value` line each in CSV.
  void set_decoder_facts(const nlohmann::json& facts) { decoder_facts_ = facts; }
  /// Prints the total.
  void finish();

 private:
  /// Prints the report's head (table: workload and column titles; CSV: column titles).
  void start();

  std::ostream& out_;
  nlohmann::json workload_;
  nlohmann::json decoder_facts_;  // null: none
  nlohmann::ordered_json provenance_;
  const TechTable& tech_;
  Format format_;
  bool per_layer_;
  std::optional<StreamedJsonObject> json_;  // JSON with per_layer: the "layers" array
  OpCounts total_;
  bool started_ = false;
};

}  // namespace ecosim::cli
