// Trace format v1 (traces/README.md): JSON Lines — a header, one record per operation, an end record.
// Conversion of records to and from JSON, and whole-trace parsing (trace_reader.hpp reads record by record).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::trace {

inline constexpr int kFormatVersion = 1;
inline constexpr std::string_view kFormatName = "ecosim-trace";

struct Header {
  int version = kFormatVersion;
  std::string producer;  // program and version that wrote the trace
  Convention convention = Convention::exact;
  nlohmann::json workload = nlohmann::json::object();  // what was traced (model, variant, shapes, ...)
};

struct Trace {
  Header header;
  std::vector<OpRecord> ops;
};

nlohmann::json to_json(const Header& h);
nlohmann::json to_json(const OpRecord& r);

/// Parses and validates a whole trace held in memory, with every record kept (small traces: tests, fuzzing);
/// throws ecosim::Error "<origin>:<line>: <field>: <problem>". User traces are streamed with TraceReader.
Trace parse(std::string_view text, const std::string& origin);
Trace read_file(const std::string& path);

}  // namespace ecosim::trace
