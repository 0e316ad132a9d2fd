// The benchmarks' peak-memory figure (bench_onnx_import here, accel_model's bench_accel): the process's peak
// resident set so far, from getrusage.
#pragma once
#include <sys/resource.h>

namespace ecosim::benchmarks {

/// The process's peak resident set so far, in MiB.
inline double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024;  // ru_maxrss is in KiB on Linux
}

}  // namespace ecosim::benchmarks
