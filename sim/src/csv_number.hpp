// Internal: how every CSV report of ecosim (compare.csv, sweep.csv) writes a real number — the shortest text that
// reads back as the same double, so a quantity prints identically in both and nothing is lost to rounding — and a
// text field (a layer's or an op's name) — quoted where it holds a comma, a quote or a line break (RFC 4180).
#pragma once
#include <fmt/core.h>
#include <string>

namespace ecosim::cli {

inline std::string csv_number(double x) { return fmt::format("{}", x); }

inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace ecosim::cli
