// Roofline GPU latency estimate from the embedded table of GPU peak rates.
#include "gpu_estimate.hpp"

#include <fmt/core.h>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "embedded_texts.hpp"

namespace ecosim::cli {

namespace {

constexpr const char* kOrigin = "builtin gpu_roofline.json";
// Plausible peak rates: a typo (a rate in GFLOP/s where TFLOP/s belong) is an error, not an estimate.
constexpr Range<double> kTflops{1e-3, 1e4, " TFLOP/s"};
constexpr Range<double> kTbPerS{1e-3, 1e3, " TB/s"};

}  // namespace

GpuRoofline gpu_roofline(const std::string& gpu) {
  const auto table = parse_json(embedded::gpu_roofline(), kOrigin);
  const JsonReader r(table, kOrigin);
  r.exact_keys({"description", "default", "gpus"});
  const nlohmann::json& gpus = r.object("gpus");
  for (const auto& [name, rates] : gpus.items())
    JsonReader(rates, fmt::format("{}: gpus.{}", kOrigin, name))
        .exact_keys({"fp32_tflops", "memory_tb_per_s", "source"});
  const std::string chosen = gpu.empty() ? r.text("default") : gpu;
  if (!gpus.contains(chosen)) {
    std::string valid;
    for (const auto& [key, value] : gpus.items()) valid += (valid.empty() ? "" : ", ") + key;
    throw Error("no roofline data for GPU '" + chosen + "' (known: " + valid + ")");
  }
  const JsonReader rates(gpus[chosen], fmt::format("{}: gpus.{}", kOrigin, chosen));
  return {chosen, rates.number("fp32_tflops", kTflops) * 1e12, rates.number("memory_tb_per_s", kTbPerS) * 1e12};
}

double estimate_gpu_latency_ms(const std::vector<OpRecord>& ops, const GpuRoofline& roofline) {
  double seconds = 0;
  for (const OpRecord& op : ops) {
    double count = 0;
    for (OpKind k : kAllOpKinds) count += double(op.counts.ops(k));
    const double bytes = double(op.counts.read_bytes()) + double(op.counts.written_bytes());
    seconds += std::max(count / roofline.ops_per_s, bytes / roofline.bytes_per_s);
  }
  return seconds * 1e3;
}

}  // namespace ecosim::cli
