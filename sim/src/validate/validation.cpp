// Validation table: recording and printing.
#include "validation.hpp"

#include <fmt/core.h>
#include <fmt/ostream.h>
#include <algorithm>
#include <iostream>

namespace ecosim::cli {

void Validation::check(const std::string& name, bool ok, const std::string& detail) {
  rows_.push_back({name, detail, ok ? Status::pass : Status::fail});
}

void Validation::skip(const std::string& name, const std::string& why) { rows_.push_back({name, why, Status::skip}); }

bool Validation::failed() const {
  return std::any_of(rows_.begin(), rows_.end(), [](const Row& r) { return r.status == Status::fail; });
}

void Validation::print(const std::string& suite) const {
  std::size_t width = 10;
  for (const auto& r : rows_) width = std::max(width, r.check.size());
  fmt::print(std::cout, "validate --suite {} (device: {})\n", suite, device_ == DeviceChoice::cuda ? "cuda" : "cpu");
  int pass = 0, fail = 0, skip = 0;
  for (const auto& r : rows_) {
    const char* s = r.status == Status::pass ? "PASS" : r.status == Status::fail ? "FAIL" : "SKIP";
    (r.status == Status::pass ? pass : r.status == Status::fail ? fail : skip)++;
    fmt::print(std::cout, "  {:<4}  {:<{}}  {}\n", s, r.check, width, r.detail);
  }
  fmt::print(std::cout, "{} passed, {} failed, {} skipped\n", pass, fail, skip);
}

}  // namespace ecosim::cli
