// Strict reading of a GPU description (accel_model/data/gpus/<name>.json or a user's file): every key known,
// every number inside a physical range, so that a typo or a negative bandwidth is an error naming the key.
#include "ecosim/accel_model/gpu/gpu_spec.hpp"

#include <algorithm>
#include <array>

#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "ecosim/ops_counter/text_file.hpp"

namespace ecosim::embedded {
std::string_view gpu_a100_sxm();
std::string_view gpu_h100_sxm();
std::string_view gpu_h100_pcie();
std::string_view gpu_h200();
std::string_view gpu_l4();
std::string_view gpu_rtx4090();
}  // namespace ecosim::embedded

namespace ecosim::gpu {

namespace {

struct BuiltinGpu {
  std::string_view name;
  std::string_view (*text)();
};
constexpr std::array kBuiltin = {
    BuiltinGpu{"a100-sxm", &embedded::gpu_a100_sxm},
    BuiltinGpu{"h100-sxm", &embedded::gpu_h100_sxm},
    BuiltinGpu{"h100-pcie", &embedded::gpu_h100_pcie},
    BuiltinGpu{"h200", &embedded::gpu_h200},
    BuiltinGpu{"l4", &embedded::gpu_l4},
    BuiltinGpu{"rtx4090", &embedded::gpu_rtx4090},
};

constexpr std::array<std::string_view, 5> kDTypeNames = {"fp32", "tf32", "fp16", "bf16", "fp8"};

// Generous bounds around any GPU, so that a unit slip (GB/s given in TB/s) or a sign is an error.
constexpr Range<std::uint64_t> kSms{1, 1024, " SMs"};
constexpr Range<double> kClockMhz{100, 10'000, " MHz"};
constexpr Range<std::uint64_t> kL2Bytes{1 << 16, std::uint64_t{1} << 34, " bytes"};
constexpr Range<std::uint64_t> kMemoryBytes{std::uint64_t{1} << 28, std::uint64_t{1} << 44, " bytes"};
constexpr Range<double> kMemoryGbPerS{10, 100'000, " GB/s"};
constexpr Range<double> kTflops{0.1, 100'000, " TFLOP/s"};
constexpr Range<double> kSfuPerClock{1, 1024, " ops per clock per SM"};
constexpr Range<std::uint64_t> kSmRegisters{1024, std::uint64_t{1} << 20, " registers"};
constexpr Range<std::uint64_t> kSmThreads{32, 65536, " threads"};
constexpr Range<std::uint64_t> kSmBlocks{1, 1024, " blocks"};
constexpr Range<std::uint64_t> kSmSharedBytes{1024, std::uint64_t{1} << 24, " bytes"};

}  // namespace

DType parse_dtype(std::string_view name) {
  for (std::size_t i = 0; i < kDTypeNames.size(); ++i)
    if (kDTypeNames[i] == name) return static_cast<DType>(i);
  throw Error(fmt::format("unknown dtype '{}' (valid: fp32, tf32, fp16, bf16, fp8)", name));
}

std::string_view dtype_name(DType dtype) { return kDTypeNames[static_cast<std::size_t>(dtype)]; }

std::uint64_t dtype_bytes(DType dtype) {
  switch (dtype) {
    case DType::fp32:
    case DType::tf32: return 4;
    case DType::fp16:
    case DType::bf16: return 2;
    case DType::fp8: return 1;
  }
  return 4;
}

double GpuSpec::matmul_flops_per_s(DType dtype) const {
  if (dtype == DType::fp32) return cuda_core_fp32_flops_per_s;
  const double rate = tensor_flops_per_s[static_cast<std::size_t>(dtype)];
  if (rate <= 0) throw Error(fmt::format("the {} has no {} tensor-core rate", name, dtype_name(dtype)));
  return rate;
}

std::vector<std::string> builtin_gpu_names() {
  std::vector<std::string> names;
  for (const auto& g : kBuiltin) names.emplace_back(g.name);
  return names;
}

GpuSpec builtin_gpu(std::string_view name) {
  for (const auto& g : kBuiltin)
    if (g.name == name) return parse_gpu(g.text(), fmt::format("builtin gpus/{}.json", g.name));
  for (const auto& g : kBuiltin) {  // a display name ("H100 SXM")
    GpuSpec spec = parse_gpu(g.text(), fmt::format("builtin gpus/{}.json", g.name));
    if (spec.name == name) return spec;
  }
  std::string known;
  for (const auto& g : kBuiltin) known += (known.empty() ? "" : ", ") + std::string(g.name);
  throw Error(fmt::format("unknown GPU '{}' (known: {})", name, known));
}

std::optional<std::string> builtin_gpu_of_device(std::string_view device_name) {
  for (const auto& g : kBuiltin) {
    const GpuSpec spec = parse_gpu(g.text(), fmt::format("builtin gpus/{}.json", g.name));
    if (std::find(spec.cuda_device_names.begin(), spec.cuda_device_names.end(), device_name) !=
        spec.cuda_device_names.end())
      return std::string(g.name);
  }
  return std::nullopt;
}

GpuSpec parse_gpu(std::string_view json_text, const std::string& origin) {
  const nlohmann::json doc = parse_json(json_text, origin);
  const JsonReader r(doc, origin);
  r.exact_keys({"name", "architecture", "sms", "boost_clock_mhz", "l2_bytes", "memory_bytes", "memory_gb_per_s",
                "cuda_core_fp32_tflops", "tensor_dense_tflops", "warpgroup_mma",
                "special_function_ops_per_clock_per_sm", "sm_resources", "sources"},
               {"cuda_device_names"});
  GpuSpec g;
  g.name = r.text("name");
  if (r.has("cuda_device_names"))
    for (const nlohmann::json& device : r.list("cuda_device_names")) {
      if (!device.is_string()) r.fail("cuda_device_names", "must be a list of strings");
      g.cuda_device_names.push_back(device.get<std::string>());
    }
  g.architecture = r.text("architecture");
  g.sms = r.count("sms", kSms);
  g.boost_clock_hz = r.number("boost_clock_mhz", kClockMhz) * 1e6;
  g.l2_bytes = r.count("l2_bytes", kL2Bytes);
  g.memory_bytes = r.count("memory_bytes", kMemoryBytes);
  g.memory_bytes_per_s = r.number("memory_gb_per_s", kMemoryGbPerS) * 1e9;
  g.cuda_core_fp32_flops_per_s = r.number("cuda_core_fp32_tflops", kTflops) * 1e12;
  const nlohmann::json& tensor = r.object("tensor_dense_tflops");
  constexpr std::array<std::string_view, 4> kTensorTypes = {"tf32", "fp16", "bf16", "fp8"};
  reject_unknown_keys(tensor, kTensorTypes, origin, "tensor_dense_tflops");
  for (const auto& [key, value] : tensor.items())
    g.tensor_flops_per_s[static_cast<std::size_t>(parse_dtype(key))] =
        r.number("tensor_dense_tflops." + key, kTflops) * 1e12;
  g.warpgroup_mma = r.flag("warpgroup_mma");
  g.special_function_ops_per_clock_per_sm = r.number("special_function_ops_per_clock_per_sm", kSfuPerClock);
  const JsonReader sm(r.object("sm_resources"), origin + ": sm_resources");
  sm.exact_keys({"registers", "threads", "blocks", "shared_bytes"});
  g.sm = {sm.count("registers", kSmRegisters), sm.count("threads", kSmThreads), sm.count("blocks", kSmBlocks),
          sm.count("shared_bytes", kSmSharedBytes)};
  const nlohmann::json& sources = r.list("sources");
  if (sources.empty()) r.fail("sources", "give at least one source for the figures");
  for (std::size_t i = 0; i < sources.size(); ++i) {
    if (!sources[i].is_string()) r.fail(fmt::format("sources[{}]", i), "must be a string");
    g.sources.push_back(sources[i].get<std::string>());
  }
  return g;
}

GpuSpec read_gpu_file(const std::string& path) { return parse_gpu(read_text_file(path, kMaxJsonDocumentBytes), path); }

}  // namespace ecosim::gpu
