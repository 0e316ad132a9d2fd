// Internal: the PASS/FAIL/SKIP table of `ecosim validate`, and the suites it runs (one function per suite,
// each in its own validate_<suite>.cpp).
#pragma once
#include <string>
#include <vector>

#include "device_option.hpp"

namespace ecosim::cli {

class Validation {
 public:
  enum class Status { pass, fail, skip };
  struct Row {
    std::string check, detail;
    Status status;
  };

  explicit Validation(DeviceChoice device) : device_(device) {}
  DeviceChoice device() const { return device_; }
  /// Records one check: pass when `ok`, fail otherwise; detail holds the measured numbers.
  void check(const std::string& name, bool ok, const std::string& detail);
  /// Records a GPU check that could not run, saying why.
  void skip(const std::string& name, const std::string& why);

  const std::vector<Row>& rows() const { return rows_; }
  bool failed() const;
  void print(const std::string& suite) const;

 private:
  DeviceChoice device_;
  std::vector<Row> rows_;
};

void validate_compression(Validation& v);  // ActNN, GACT, Mesa (validate_compression.cpp)
void validate_fewbit(Validation& v);       // Few-Bit Backward (validate_fewbit.cpp)

void validate_attention(Validation& v);  // validate_attention.cpp

}  // namespace ecosim::cli
