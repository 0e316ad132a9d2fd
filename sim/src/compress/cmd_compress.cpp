// `ecosim compress`: compresses a synthetic (seeded normal) or .npy activation tensor with one scheme and
// reports storage (bits per element including metadata, ratio to the input dtype), error and time; --trace
// writes the uncompressed and compressed paths for `ecosim replay` (compress_trace.hpp).
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <iostream>

#include <algorithm>
#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include "compress_schemes.hpp"
#include "compress_trace.hpp"
#include "count_report.hpp"
#include "ecosim/ecoformer/npy.hpp"
#include "ecosim/kernels/philox.hpp"
#include "ecosim/ops_counter/checked.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "ecosim/sim/commands.hpp"
#include "provenance.hpp"
#include "work_limits.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

// Memory per element while compressing: the fp32 values, their rounding to --dtype and back, the
// reconstruction and the scheme's reference (each 4 bytes), its packed output and scratch — up to 12 floats'
// worth (peaks measured: Few-Bit's 39 bytes, per-sample ActNN's 47 with one-element samples, the rest ≤ 24).
constexpr double kBytesPerElement = 12 * sizeof(float);

/// "128x197x192" → {128, 197, 192}; every dimension a positive integer.
std::vector<std::uint64_t> parse_shape(const std::string& text) {
  std::vector<std::uint64_t> shape;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find('x', start);
    const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (part.empty() || part.size() > 18 ||
        !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }) || std::stoull(part) == 0)
      throw Error("--shape must be positive integers joined by 'x' (e.g. 128x197x192), not '" + text + "'");
    shape.push_back(std::stoull(part));
    if (end == std::string::npos) return shape;
    start = end + 1;
  }
}

std::string shape_text(const std::vector<std::uint64_t>& shape) { return fmt::format("{}", fmt::join(shape, "x")); }

}  // namespace

int compress(const Args& args) {
  po::options_description options("ecosim compress");
  options.add_options()("help,h", "this help")("scheme", po::value<std::string>(), "actnn, gact, mesa or fewbit")(
      "bits", po::value<std::int64_t>(),
      "bits per element (gact: average budget, raw at the input's width: 32, or 16 for fp16 and bf16; mesa: 8)")(
      "activation", po::value<std::string>()->default_value("gelu"), "fewbit: the activation")(
      "shape", po::value<std::string>()->default_value("128x197x192"), "synthetic tensor shape (values: below)")(
      "dtype", po::value<std::string>()->default_value("fp32"),
      "fp32, fp16 or bf16 (a float16 --input is fp16 unless --dtype says otherwise)")(
      "device", po::value<std::string>()->default_value("auto"), "auto, cpu or cuda")(
      "seed", po::value<std::int64_t>()->default_value(0), "seed of the input and of the stochastic rounding")(
      "groups", po::value<std::int64_t>()->default_value(1), "mesa: channel groups of the last dimension")(
      "per-sample", "actnn: one width per sample (first dimension) from {1,2,4,8}, --bits the average budget")(
      "input", po::value<std::string>(), ".npy tensor (float32 or float16, C order) instead of a synthetic one")(
      "format", po::value<std::string>()->default_value("table"), "table or json")(
      "trace", po::value<std::string>(),
      "also write the trace (format v2, float_storage recorded): two alternatives, the activation stored and "
      "loaded uncompressed, and compressed (compress work, store and load of codes and metadata, decompress "
      "work); `ecosim replay` reports them side by side");
  options.add(memory_limit_options());  // its time is linear in the elements, bounded by their 2^32
  po::variables_map vm;
  if (!parse_args(
          args, options, vm, "ecosim compress --scheme NAME --bits B [--shape AxBxC] [options]",
          "The synthetic tensor holds standard normal values (mean 0, standard deviation 1) drawn from --seed.\n"
          "max_error and mean_error are the largest and the mean absolute difference per element between the\n"
          "reconstruction and the reference (the input rounded to --dtype; fewbit: the exact derivative f'(x)),\n"
          "in the tensor's own units: standard deviations for the synthetic tensor.\n"))
    return 0;
  if (!vm.count("scheme") || !vm.count("bits")) throw Error("give --scheme and --bits");
  const CompressScheme& scheme = find_scheme(vm["scheme"].as<std::string>());
  const Format format = parse_format(vm["format"].as<std::string>());
  if (format == Format::csv) throw Error("compress prints a table or json, not csv");
  const std::optional<DType> dtype_given = parse_dtype(vm["dtype"].as<std::string>());
  if (!dtype_given || !is_float(*dtype_given)) throw Error("--dtype must be fp32, fp16 or bf16");
  DType dtype = *dtype_given;

  CompressRequest request;
  const std::uint64_t bits = positive(vm, "bits");  // signed parse: "-1" is refused, not wrapped
  if (bits > 32) throw Error("--bits " + std::to_string(bits) + " is more than the 32 of a raw fp32 element");
  request.bits = static_cast<unsigned>(bits);
  request.activation = vm["activation"].as<std::string>();
  request.seed = non_negative(vm, "seed");
  request.groups = positive(vm, "groups");
  request.per_sample_bits = vm.count("per-sample") > 0;
  if (request.per_sample_bits && scheme.name != "actnn") throw Error("--per-sample applies to --scheme actnn only");
  if (scheme.name != "mesa") reject_given(vm, {"groups"}, "--scheme mesa");
  if (scheme.name != "fewbit") reject_given(vm, {"activation"}, "--scheme fewbit");
  if (vm.count("input")) reject_given(vm, {"shape"}, "a synthetic tensor (the shape of --input is its own)");
  const WorkLimits limits = parse_work_limits(vm);
  request.device = resolve_device(vm["device"].as<std::string>());
  std::vector<float> values;
  if (vm.count("input")) {
    ecoformer::NpyArray a = ecoformer::read_npy(vm["input"].as<std::string>());
    if (vm["dtype"].defaulted() && a.dtype == ecoformer::NpyDtype::float16) dtype = DType::fp16;  // the file's own
    request.shape = a.shape;
    check_memory(limits, double(a.data.size()) * kBytesPerElement, "compressing " + shape_text(request.shape));
    values = std::move(a.data);
  } else {
    request.shape = parse_shape(vm["shape"].as<std::string>());
    std::uint64_t elements = 1;
    for (auto d : request.shape) elements = checked_mul(elements, d);
    if (elements > (std::uint64_t{1} << 32)) throw Error("--shape: more than 2^32 elements");
    check_memory(limits, double(elements) * kBytesPerElement, "compressing " + shape_text(request.shape));
    values.resize(elements);
    for (std::uint64_t i = 0; i < values.size(); ++i) values[i] = rng::normal(request.seed, 0x1a9u, i);
  }
  const std::vector<std::uint8_t> bytes = kernels::encode(values, dtype);
  request.x = {bytes.data(), dtype, values.size()};
  const std::vector<float> input = kernels::decode(request.x);  // the values after rounding to --dtype
  for (std::size_t i = 0; i < input.size(); ++i)  // finite in the file, not in --dtype: not the input's own NaN/Inf
    if (std::isfinite(values[i]) && !std::isfinite(input[i]))
      throw Error(fmt::format("element {} ({}) overflows {}: give --dtype fp32", i, values[i], name(dtype)));

  if (vm.count("trace") && scheme.name == "fewbit")
    throw Error(
        "--trace: fewbit's passes are the activation's own forward and backward (f(x) and the gradient), "
        "not a compression beside them; trace actnn, gact or mesa");
  RecordingSink compress_pass, decompress_pass;
  if (vm.count("trace")) {
    request.compress_sink = &compress_pass;
    request.decompress_sink = &decompress_pass;
  }
  const CompressResult result = scheme.run(request);
  if (vm.count("trace"))
    write_compress_trace(vm["trace"].as<std::string>(), "ecosim " ECOSIM_VERSION " compress",
                         {{"compress", std::string(scheme.name)},
                          {"bits", request.bits},
                          {"shape", shape_text(request.shape)},
                          {"dtype", name(dtype)}},
                         {dtype, values.size(), compress_pass.records, decompress_pass.records, result.kept_bytes});
  const std::vector<float>& reference = result.reference.empty() ? input : result.reference;
  if (result.reconstruction.size() != reference.size()) throw Error("scheme returned a tensor of the wrong size");
  double max_error = 0, sum_error = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double e = std::abs(static_cast<double>(result.reconstruction[i]) - reference[i]);
    max_error = std::max(max_error, e);
    sum_error += e;
  }
  const std::uint64_t input_bytes = storage_bytes(dtype, values.size());
  const nlohmann::ordered_json report = {
      {"scheme", scheme.name},
      {"bits", request.bits},
      {"shape", shape_text(request.shape)},
      {"dtype", name(dtype)},
      {"device", request.device == DeviceChoice::cuda ? "cuda" : "cpu"},
      {"elements", values.size()},
      {"input_bytes", input_bytes},
      {"storage_bytes", result.storage_bytes()},
      {"bits_per_element", 8.0 * static_cast<double>(result.storage_bytes()) / static_cast<double>(values.size())},
      {"ratio", static_cast<double>(input_bytes) / static_cast<double>(result.storage_bytes())},
      {"max_error", max_error},
      {"mean_error", sum_error / static_cast<double>(values.size())},
      {"latency_ms", result.latency_ms},
      {"detail", result.detail}};
  if (format == Format::json) {
    nlohmann::ordered_json with_provenance = report;
    with_provenance["provenance"] = provenance();
    fmt::print(std::cout, "{}\n", with_provenance.dump(2));
    return 0;
  }
  for (const auto& [key, value] : report.items())
    fmt::print(std::cout, "{:<18} {}\n", key, value.is_string() ? value.get<std::string>() : value.dump());
  fmt::print(std::cout, "{}", provenance_lines(provenance()));
  return 0;
}

}  // namespace ecosim::cli
