// Internal: how every CSV report of ecosim (compare.csv, sweep.csv) writes a real number — the shortest text that
// reads back as the same double, so a quantity prints identically in both and nothing is lost to rounding.
#pragma once
#include <fmt/core.h>
#include <string>

namespace ecosim::cli {

inline std::string csv_number(double x) { return fmt::format("{}", x); }

}  // namespace ecosim::cli
