// Roofline GPU latency estimate from the embedded table of GPU peak rates.
#include "gpu_estimate.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "embedded_texts.hpp"

namespace ecosim::cli {

GpuRoofline gpu_roofline(const std::string& gpu) {
  const auto table = parse_json(embedded::gpu_roofline(), "builtin gpu_roofline.json");
  const std::string chosen = gpu.empty() ? table["default"].get<std::string>() : gpu;
  if (!table["gpus"].contains(chosen)) {
    std::string valid;
    for (const auto& [key, value] : table["gpus"].items()) valid += (valid.empty() ? "" : ", ") + key;
    throw Error("no roofline data for GPU '" + chosen + "' (known: " + valid + ")");
  }
  return {chosen, table["gpus"][chosen]["fp32_tflops"].get<double>() * 1e12,
          table["gpus"][chosen]["memory_tb_per_s"].get<double>() * 1e12};
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
