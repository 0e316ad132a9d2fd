// bench_attention's machine-readable output: one record per (kernel, dtype, N, D), its timing (median, min,
// max, repetitions) and bandwidth bound, or "n/a" with the reason it was not measured; written as JSON
// atomically (FILE.tmp, then renamed over FILE). scripts/bench_sdpa writes the same schema and
// scripts/attention_table merges both (its docstring describes the fields).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ecosim/kernels/timing.hpp"

namespace ecosim::bench {

struct Record {
  std::string kernel, dtype;  // e.g. "ecoformer", "fp32"
  std::uint64_t n = 0, d = 0, batch_heads = 0;
  std::optional<timing::Stats> time;  // empty: not measured, see reason
  std::string reason;
  double bound_ms = 0;  // the bandwidth bound's time (copy_time.hpp); 0 when not measured
};

struct RecordsHeader {
  std::string benchmark, device, method;
  timing::Plan plan;
  double max_seconds_per_case = 0, max_seconds = 0;  // the caps (0: none)
};

/// Writes the records to path.tmp and renames it to path; ecosim::Error when either step fails.
void write_records(const std::string& path, const RecordsHeader& header, const std::vector<Record>& records);

}  // namespace ecosim::bench
