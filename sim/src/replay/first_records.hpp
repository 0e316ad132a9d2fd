// Internal: FirstRecords, the next `count` records of a record source as a source of their own (one alternative
// of a trace, replayed on its own).
#pragma once
#include <cstdint>

#include "ecosim/ops_counter/record_source.hpp"

namespace ecosim::cli {

class FirstRecords : public RecordSource {
 public:
  FirstRecords(RecordSource& from, std::uint64_t count) : from_(from), left_(count) {}
  /// The next record while fewer than `count` were handed out; the source's errors (a trace shorter than its
  /// header says is one) pass on.
  bool next(OpRecord& op) override {
    if (left_ == 0 || !from_.next(op)) return false;
    --left_;
    return true;
  }

 private:
  RecordSource& from_;
  std::uint64_t left_;
};

}  // namespace ecosim::cli
