// TraceWriter: header, one JSON line per op, end record with the op count.
#include "ecosim/traces/trace_writer.hpp"

namespace ecosim::trace {

TraceWriter::TraceWriter(const std::string& path, const Header& header) : file_(path) {
  file_.stream() << to_json(header).dump() << '\n';
}

void TraceWriter::record(const OpRecord& op) {
  file_.stream() << to_json(op).dump() << '\n';
  ++records_;
}

void TraceWriter::finish() {
  file_.stream() << nlohmann::json{{"record", "end"}, {"ops", records_}}.dump() << '\n';
  file_.commit();
}

}  // namespace ecosim::trace
