// TraceWriter: the OpSink that writes a trace (format version kFormatVersion) file through an AtomicFile (a file
// appears only when finish() succeeds; "-" is standard output, devices and FIFOs are written through).
#pragma once
#include <cstdint>
#include <string>

#include "ecosim/ops_counter/op_record.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "ecosim/traces/trace.hpp"

namespace ecosim::trace {

class TraceWriter : public OpSink {
 public:
  TraceWriter(const std::string& path, const Header& header);
  void record(const OpRecord& op) override;
  /// Writes the end record and moves the file into place.
  void finish();

 private:
  AtomicFile file_;
  std::uint64_t records_ = 0;
};

}  // namespace ecosim::trace
