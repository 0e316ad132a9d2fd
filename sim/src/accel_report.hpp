// Internal: the accelerator options shared by `replay` and `compare` (--accel NAME | --accel-config FILE), and
// the printing of a replay as an aligned table, CSV or JSON, row by row as the ops finish.
#pragma once
#include <boost/program_options.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "count_report.hpp"
#include "ecosim/accel_model/replay.hpp"
#include "json_stream.hpp"

namespace ecosim::cli {

/// --accel, --accel-config, --fuse-attention and --engine, whose default is `default_engine` (systemc where this
/// program links it, else closed-form: accel::default_engine()) and whose help lists `engines`.
boost::program_options::options_description accel_options(
    const std::string& default_engine = std::string(accel::name(accel::default_engine())),
    const std::string& engines = "systemc or closed-form");
/// The built-in accelerator named by --accel, or --accel-config merged over it; throws ecosim::Error.
accel::AccelConfig parse_accel(const boost::program_options::variables_map& vm);
/// The timing engine named by --engine (systemc or closed-form); throws ecosim::Error.
accel::Engine parse_engine(const boost::program_options::variables_map& vm);

/// One alternative of a trace (trace::Alternative) and the replay of its records on their own.
struct AlternativeResult {
  std::string name;
  accel::ReplayResult result;
};

/// Per-operation rows as they come, then the total: cycles, latency, energy by component, utilisation and
/// stalls. JSON: the totals' fields (accel::to_json), "provenance" and "ops": [row, ...], written row by row.
/// A trace with alternatives gets each alternative's total and the first one's ratios to the others instead
/// of one total (alternatives are ways of doing the same work: never summed).
class ReplayPrinter : public accel::RowSink {
 public:
  /// Prints the head (table: accelerator, engine, clock and column titles; CSV: the provenance's "# key: value"
  /// lines, among them "# engine: NAME", and the column titles, led by "alternative" for a trace with
  /// alternatives; JSON names the engine in its totals).
  ReplayPrinter(std::ostream& out, Format format, const accel::AccelConfig& config, accel::Engine engine,
                const nlohmann::ordered_json& provenance, bool alternatives = false);
  /// The rows that follow are alternative `name`'s (table: a title line; CSV: their first column; JSON: their
  /// "alternative" field).
  void begin_alternative(const std::string& name);
  void row(const accel::OpRow& row) override;
  /// Prints the total (table: and a summary line, then the provenance's lines).
  void finish(const accel::ReplayResult& result);
  /// Prints each alternative's total and the first one's ratios to the others — DRAM bits, energy, latency —
  /// (table: a summary line each; CSV: total rows and "# ratio" lines; JSON: "alternatives" and "ratios").
  void finish(const std::vector<AlternativeResult>& alternatives);

 private:
  std::ostream& out_;
  Format format_;
  double clock_mhz_;
  nlohmann::ordered_json provenance_;
  bool alternatives_;
  std::string alternative_;                 // the alternative the current rows belong to
  std::optional<StreamedJsonObject> json_;  // JSON: the "ops" array
};

}  // namespace ecosim::cli
