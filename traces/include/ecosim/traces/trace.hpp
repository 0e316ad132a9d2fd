// Trace format v2 (traces/README.md): JSON Lines — a header, one record per operation, an end record.
// Conversion of records to and from JSON, and whole-trace parsing (trace_reader.hpp reads record by record;
// version-1 files are converted as they are read).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim::trace {

/// The version written; the reader reads kOldestFormatVersion to kFormatVersion.
inline constexpr int kFormatVersion = 2;
inline constexpr int kOldestFormatVersion = 1;
inline constexpr std::string_view kFormatName = "ecosim-trace";
/// A record's batch, m, n and k are each in 1..kMaxShape: beyond it no real workload (and products of a few of
/// them would overflow); the writer refuses what the reader would.
inline constexpr std::uint64_t kMaxShape = std::uint64_t{1} << 40;

/// How a trace's float data types (fp32, fp16, bf16) are held on an accelerator (traces/README.md, header):
/// `operand`: real numbers of a network the accelerator runs quantised, held at its float operand width;
/// `recorded`: data at rest in its own format (fp32 = 32 bits), e.g. an activation kept for the backward pass.
enum class FloatStorage : std::uint8_t { operand, recorded };
std::string_view name(FloatStorage s);

/// A run of consecutive op records that is one way of doing the work the trace's other alternatives also do
/// (an activation kept uncompressed, or compressed): each is replayed and reported on its own, never summed.
struct Alternative {
  std::string name;
  std::uint64_t ops = 0;  // op records it holds, following the previous alternative's
  friend bool operator==(const Alternative&, const Alternative&) = default;
};

struct Header {
  int version = kFormatVersion;  // as read: the file's version (records come out as v2); written: always kFormatVersion
  std::string producer;          // program and version that wrote the trace
  Convention convention = Convention::exact;
  nlohmann::json workload = nlohmann::json::object();  // what was traced (model, variant, shapes, ...)
  FloatStorage float_storage = FloatStorage::operand;
  std::vector<Alternative> alternatives{};  // empty: the records are one workload
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
