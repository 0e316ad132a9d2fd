// TraceReader: reads a trace one record at a time, validating each as it comes, so a trace of any length is
// read in constant memory (the header on open, op records by next(), the end record's count at the end).
// Version-1 files are handed out as version-2 records (traces/README.md, "Reading version 1").
#pragma once
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ecosim/ops_counter/record_source.hpp"
#include "ecosim/traces/trace.hpp"

namespace ecosim::trace {

class TraceReader : public RecordSource {
 public:
  /// The longest line accepted (a record is a few hundred bytes); a longer one is an error, found without
  /// holding more than this much of it.
  static constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

  /// Opens `path` (a file or a FIFO) and reads and validates the header; throws ecosim::Error.
  explicit TraceReader(const std::string& path);
  /// Reads from `in`, which must outlive the reader; `origin` names it in error messages.
  TraceReader(std::istream& in, std::string origin);

  const Header& header() const { return header_; }
  /// The next op record, validated; false at the end record, after checking its op count and that nothing
  /// follows it. Throws ecosim::Error "<origin>:<line>: field '<name>': <problem>". A version-1 file is read
  /// up to four records ahead where its names may start a softmax attention.
  bool next(OpRecord& op) override;

 private:
  void read_header();
  /// Reads the next op line into pending_ (one record, or a v1 hash's components); false at the end record.
  bool read_op();
  /// Reads the next line into line_ (without its '\n'); false at the end of the input.
  bool read_line();

  std::unique_ptr<std::ifstream> file_;  // when opened by path
  std::istream& in_;
  std::string origin_;
  std::vector<char> buffer_;  // grows to the longest line read, at most kMaxLineBytes + 1
  std::string_view line_;     // the current line, in buffer_
  std::size_t line_no_ = 0;
  std::uint64_t ops_ = 0;
  bool ended_ = false;
  Header header_;
  std::vector<OpRecord> pending_;  // records read, not yet handed out (at most a few)
};

}  // namespace ecosim::trace
