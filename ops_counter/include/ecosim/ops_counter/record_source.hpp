// RecordSource, the pull side of OpSink: operations handed out one at a time (a trace file being read, a
// list in memory), so consumers such as the accelerator replay hold one record, not the whole workload.
#pragma once
#include <cstddef>
#include <span>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim {

class RecordSource {
 public:
  virtual ~RecordSource() = default;
  /// Writes the next record to `op`; false when there are no more (`op` is then unspecified).
  virtual bool next(OpRecord& op) = 0;
};

/// The records of a list in memory, in order (the list must outlive the source).
class RecordList : public RecordSource {
 public:
  explicit RecordList(std::span<const OpRecord> records) : records_(records) {}
  bool next(OpRecord& op) override {
    if (next_ == records_.size()) return false;
    op = records_[next_++];
    return true;
  }

 private:
  std::span<const OpRecord> records_;
  std::size_t next_ = 0;
};

}  // namespace ecosim
