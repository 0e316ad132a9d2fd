// Two small OpSinks used wherever records go to more than one place: one that keeps every record, and one
// that forwards each record to several sinks (e.g. an op counter, a trace writer and a replay list).
#pragma once
#include <utility>
#include <vector>

#include "ecosim/ops_counter/op_record.hpp"

namespace ecosim {

class RecordingSink : public OpSink {
 public:
  void record(const OpRecord& op) override { records.push_back(op); }
  std::vector<OpRecord> records;
};

class FanOutSink : public OpSink {
 public:
  explicit FanOutSink(std::vector<OpSink*> sinks) : sinks_(std::move(sinks)) {}
  void record(const OpRecord& op) override {
    for (OpSink* s : sinks_) s->record(op);
  }

 private:
  std::vector<OpSink*> sinks_;
};

}  // namespace ecosim
