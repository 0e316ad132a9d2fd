// TraceWriter: header, one JSON line per op, end record with the op count.
#include "ecosim/traces/trace_writer.hpp"

#include <string>
#include <utility>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::trace {

TraceWriter::TraceWriter(const std::string& path, const Header& header) : file_(path) {
  file_.stream() << to_json(header).dump() << '\n';
}

void TraceWriter::record(const OpRecord& op) {
  for (const auto& [field, value] : {std::pair{"batch", op.batch}, {"m", op.m}, {"n", op.n}, {"k", op.k}})
    if (value == 0 || value > kMaxShape)
      throw Error("record '" + op.name + "': " + field + " = " + std::to_string(value) +
                  " is outside the trace format's 1..2^40 (traces/README.md), which its readers refuse: trace a "
                  "smaller workload (a smaller batch or sequence)");
  file_.stream() << to_json(op).dump() << '\n';
  ++records_;
}

void TraceWriter::finish() {
  file_.stream() << nlohmann::json{{"record", "end"}, {"ops", records_}}.dump() << '\n';
  file_.commit();
}

}  // namespace ecosim::trace
