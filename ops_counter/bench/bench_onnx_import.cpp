// Benchmark of the ONNX importer: per model file, the wall time of parse_onnx (reading, shape inference, the
// shape evaluator, attention patterns, rules) plus counting every layer, against a baseline measured in the
// same run — the time to merely parse the file's protobuf (onnx::ModelProto::ParseFromString) — and memory:
// the process's peak resident set (getrusage; ONNX's op schemas, registered at start-up, make most of it) and
// the import's own peak, the resident high-water mark during the imports (reset before them through
// /proc/self/clear_refs) less the resident set before them. Times are medians of --reps runs.
// Usage: bench_onnx_import [--reps N] MODEL.onnx   (scripts/bench_onnx_import generates graphs and runs this)
#include <fmt/core.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "peak_rss.hpp"

using ecosim::benchmarks::peak_rss_mib;

namespace {

/// The median wall time of `reps` calls of `f`, in milliseconds.
template <class F>
double median_ms(int reps, F&& f) {
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// A field of /proc/self/status in MiB ("VmRSS": resident now, "VmHWM": the high-water mark).
double status_mib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0) return std::atof(line.c_str() + field.size() + 1) / 1024;  // in kB
  throw ecosim::Error("no " + field + " in /proc/self/status");
}

/// Resets VmHWM to the current resident set (Linux ≥ 4.0).
void reset_high_water_mark() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ecosim::Error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else
      files.push_back(arg);
  }
  if (files.empty()) {
    fmt::print(stderr, "usage: bench_onnx_import [--reps N] MODEL.onnx...\n");
    return 2;
  }
  try {
    fmt::print("{:<24} {:>6} {:>8} {:>9} {:>10} {:>6} {:>9} {:>11}\n", "model", "nodes", "size_kB", "parse_ms",
               "import_ms", "ratio", "peak_MiB", "import_MiB");
    for (const std::string& path : files) {
      const std::string bytes = read_file(path);
      onnx::ModelProto proto;
      const double parse_ms = median_ms(reps, [&] {
        if (!proto.ParseFromString(bytes)) throw ecosim::Error(path + ": not an ONNX protobuf");
      });
      reset_high_water_mark();
      const double before_mib = status_mib("VmRSS");
      std::uint64_t layers = 0;
      const double import_ms = median_ms(reps, [&] {
        const ecosim::OnnxModel model = ecosim::parse_onnx(bytes, path);
        ecosim::OpCounter counter;
        const std::vector<ecosim::Layer> counted = ecosim::onnx_layers(model, std::nullopt);
        for (const ecosim::Layer& layer : counted) ecosim::emit(layer, ecosim::Convention::exact, counter);
        layers = counted.size();
      });
      const std::string name = path.substr(path.find_last_of('/') + 1);
      const double import_mib = status_mib("VmHWM") - before_mib;
      fmt::print("{:<24} {:>6} {:>8.1f} {:>9.2f} {:>10.2f} {:>6.0f} {:>9.1f} {:>11.1f}   ({} layers)\n", name,
                 proto.graph().node_size(), double(bytes.size()) / 1000, parse_ms, import_ms, import_ms / parse_ms,
                 peak_rss_mib(), import_mib, layers);
    }
  } catch (const ecosim::Error& e) {
    fmt::print(stderr, "bench_onnx_import: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
