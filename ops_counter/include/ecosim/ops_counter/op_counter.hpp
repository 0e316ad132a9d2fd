// OpCounter: the OpSink that sums every record it receives (the op counter proper).
#pragma once
#include <cstdint>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim {

class OpCounter : public OpSink {
 public:
  void record(const OpRecord& op) override {
    total_ += op.counts;
    ++records_;
  }
  const OpCounts& total() const { return total_; }
  std::uint64_t records() const { return records_; }

 private:
  OpCounts total_;
  std::uint64_t records_ = 0;
};

}  // namespace ecosim
