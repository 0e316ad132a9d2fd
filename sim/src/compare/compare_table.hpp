// Internal: what `ecosim compare` prints for a person, every line at most kTerminalColumns wide: the workload,
// the variants' parameters, a table per variant (op counts, accelerator latency and energy, GPU latency, ratios
// to MSA beside the published ones), a legend saying where each figure comes from, and where the reports are.
// Provenance is left to the report files (compare_report.hpp).
#pragma once
#include <cstddef>
#include <string>

#include "compare_report.hpp"

namespace ecosim::cli {

/// The width every line of the terminal report fits.
inline constexpr std::size_t kTerminalColumns = 120;

/// The report for the terminal; `out_dir` holds the report files, and compare.png when `plotted`.
std::string render_terminal(const CompareReport& report, const std::string& out_dir, bool plotted);

}  // namespace ecosim::cli
