// `ecosim run` (its report on std::cout, which the Python package captures): runs one attention variant's kernel (CUDA,
// or the CPU reference) on synthetic or .npy input, times it, counts the operations it reports (and writes them as a
// trace), and compares its output with exact softmax attention on the same input (for the variants that share queries
// and keys — Reformer and the hashed family read Q as both — the reference is MSA(Q, Q, V), which differs from
// their own definitions: ecoformer/README.md);
// --output keeps the kernel's output as .npy for `ecosim validate --output`; --save-inputs DIR keeps Q, K, V
// and the kernel's random parameters with a manifest (saved_inputs.hpp) for `ecosim validate --params DIR`.
#include <fmt/core.h>
#include <cmath>

#include <iostream>

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "attention_npy.hpp"
#include "count_report.hpp"
#include "decode_report.hpp"
#include "device_option.hpp"
#include "ecosim/ecoformer/kernel_parameters.hpp"
#include "ecosim/ecoformer/reference.hpp"
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/kernels/gpu.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/ops_counter/sinks.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/trace_writer.hpp"
#include "non_finite.hpp"
#include "provenance.hpp"
#include "saved_inputs.hpp"
#include "variant_parameters.hpp"
#include "work_limits.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

/// run's destinations must be distinct files: --trace and --output one path, or either inside --save-inputs'
/// folder (whose q.npy, k.npy, v.npy and parameters it writes), would overwrite one another.
void check_distinct_destinations(const po::variables_map& vm) {
  namespace fs = std::filesystem;
  const auto where = [&](const char* key) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(fs::absolute(vm[key].as<std::string>(), ec), ec);
    return p;
  };
  if (vm.count("trace") && vm.count("output") && where("trace") == where("output"))
    throw Error("--trace and --output name the same file");
  for (const char* key : {"trace", "output"})
    if (vm.count(key) && vm.count("save-inputs") && where(key).parent_path() == where("save-inputs"))
      throw Error(
          fmt::format("--{} lies in --save-inputs' folder, whose files it would replace or be replaced by", key));
}

// error_vs_msa is computed up to this length (exact MSA on the CPU costs N² per head).
constexpr std::uint64_t kMaxSeqForError = 4096;

std::optional<std::uint64_t> optional_positive(const po::variables_map& vm, const std::string& key) {
  if (!vm.count(key)) return std::nullopt;
  return positive(vm, key);
}

AttentionConfig parse_config(const po::variables_map& vm) {
  AttentionConfig c;
  c.variant = attention_variant_named(vm["variant"].as<std::string>());
  c.projections = false;
  c.batch = optional_positive(vm, "batch").value_or(1);
  c.heads = optional_positive(vm, "heads").value_or(1);
  c.seq = optional_positive(vm, "seq").value_or(0);
  c.head_dim = optional_positive(vm, "dim").value_or(32);
  c.causal = vm.count("causal") > 0;
  read_variant_parameters(vm, c);
  return c;
}

/// With --input the shape comes from Q's file; a shape option given as well must agree with it.
void take_shape(AttentionConfig& c, const ecoformer::Tensor& q, const po::variables_map& vm) {
  const std::pair<const char*, std::uint64_t> dims[] = {
      {"batch", q.batch}, {"heads", q.heads}, {"seq", q.seq}, {"dim", q.dim}};
  for (const auto& [key, value] : dims)
    if (vm.count(key) && positive(vm, key) != value)
      throw Error(std::string("--") + key + " = " + std::to_string(positive(vm, key)) +
                  " disagrees with the input file's " + std::to_string(value));
  c.batch = q.batch, c.heads = q.heads, c.seq = q.seq, c.head_dim = q.dim;
}

nlohmann::json describe(const AttentionConfig& c) {
  nlohmann::json j{
      {"variant", name(c.variant)}, {"batch", c.batch}, {"heads", c.heads}, {"seq", c.seq}, {"dim", c.head_dim}};
  if (c.causal) j["causal"] = true;
  j.update(describe_parameters(c));
  return j;
}

}  // namespace

int run(const Args& args) {
  po::options_description options("ecosim run");
  options.add_options()("help,h", "this help")(
      "variant", po::value<std::string>()->required(),
      ("one of " + variant_names([](const VariantInfo& row) { return row.has_kernel; }, ", ")).c_str())(
      "batch", po::value<std::int64_t>(), "batch size B (default 1)")("heads", po::value<std::int64_t>(),
                                                                      "heads H (default 1)")(
      "seq", po::value<std::int64_t>(), "tokens N (required without --input)")("dim", po::value<std::int64_t>(),
                                                                               "head width D (default 32)")(
      "causal", "causal attention (query i sees keys 0..i): msa, performer and the EcoFormer family")(
      "decode-steps", po::value<std::int64_t>(),
      "with --causal: also prefill the first N - T tokens and decode the last T one at a time against the K/V "
      "cache or recurrent state (on --device), each step checked against the causal run's row; reported in the output, "
      "not in --trace, which holds the causal run's records")("device", po::value<std::string>()->default_value("auto"),
                                                              "auto, cpu or cuda")(
      "seed", po::value<std::int64_t>()->default_value(0), "seed of the synthetic input and random parameters")(
      "trace", po::value<std::string>(), "write the instrumented op trace (JSON Lines) here")(
      "input", po::value<std::string>(), "q.npy,k.npy,v.npy: float32 [batch, heads, seq, dim] instead of synthetic")(
      "output", po::value<std::string>(), "write the kernel's output here: .npy, float32 [batch, heads, seq, dim]")(
      "save-inputs", po::value<std::string>(),
      "write q, k, v and the kernel's random parameters here as .npy with a manifest.json (for validate --params)")(
      "format", po::value<std::string>()->default_value("table"), "table or json");
  options.add(variant_parameter_options());
  options.add(work_limit_options());
  po::variables_map vm;
  if (!parse_args(args, options, vm, "ecosim run --variant NAME --seq N [--batch B --heads H --dim D] [options]",
                  variant_list_help()))
    return 0;
  const Format format = parse_format(vm["format"].as<std::string>());
  if (format == Format::csv) throw Error("--format must be table or json");
  AttentionConfig config = parse_config(vm);
  check_parameters_apply(vm, std::vector<AttentionVariant>{config.variant});
  const WorkLimits limits = parse_work_limits(vm);
  const std::uint64_t seed = non_negative(vm, "seed");
  const ecoformer::Device device = resolve_device(vm["device"].as<std::string>()) == DeviceChoice::cuda
                                       ? ecoformer::Device::cuda
                                       : ecoformer::Device::cpu;
  ecoformer::AttentionInputs inputs;
  if (vm.count("input")) {
    inputs = read_attention_inputs(vm["input"].as<std::string>());
    take_shape(config, inputs.q, vm);
  } else if (!vm.count("seq")) {
    throw Error("give --seq N (or --input q.npy,k.npy,v.npy)");
  }
  config.validate();
  const bool decode = vm.count("decode-steps") > 0;
  const std::uint64_t prompt_tokens = decode ? decode_prompt(positive(vm, "decode-steps"), config) : 0;
  check_attention_kernel(limits, config, device == ecoformer::Device::cuda);  // before synthetic inputs are made
  check_distinct_destinations(vm);
  std::optional<SavedInputsWriter> save;  // constructed here: its folder is checked before the work
  if (vm.count("save-inputs")) save.emplace(vm["save-inputs"].as<std::string>(), config);
  std::optional<AtomicFile> output;  // opened here: a bad path fails before the work
  if (vm.count("output")) output.emplace(vm["output"].as<std::string>());
  if (!vm.count("input")) inputs = ecoformer::synthetic_inputs(config, seed);

  OpCounter counter;
  std::optional<trace::TraceWriter> writer;
  if (vm.count("trace"))
    writer.emplace(vm["trace"].as<std::string>(), trace::Header{.producer = std::string("ecosim run ") + ECOSIM_VERSION,
                                                                .convention = Convention::exact,
                                                                .workload = describe(config)});
  FanOutSink sink(writer ? std::vector<OpSink*>{&counter, &*writer} : std::vector<OpSink*>{&counter});
  const ecoformer::KernelParameters parameters = ecoformer::draw_kernel_parameters(inputs, config, seed);
  const ecoformer::RunResult result = ecoformer::run_attention(inputs, config, device, parameters, sink);
  if (const std::uint64_t bad = count_non_finite(result.out.data))  // before any file is written
    throw Error(
        fmt::format("{}'s output holds {} NaN/Inf values of {}: the inputs' scale is beyond what its "
                    "arithmetic holds in fp32{}",
                    name(config.variant), bad, result.out.data.size(),
                    config.variant == AttentionVariant::performer
                        ? " (its random features' denominators underflow; msa takes these inputs)"
                        : ""));
  std::optional<nlohmann::json> decode_json;  // (its kernels may fail: before any file is written)
  if (decode) decode_json = decode_report(inputs, config, parameters, result.out, prompt_tokens, device);
  if (output) write_attention_output(*output, result.out);
  if (writer) writer->finish();
  if (save) save->write(inputs, parameters, seed);

  std::optional<double> error_vs_msa;
  std::string no_error_because = "N > 4096";  // why error_vs_msa is not given
  const bool shared_qk = variant_info(config.variant).shares_qk;
  if (config.seq <= kMaxSeqForError) {
    AttentionConfig msa = config;
    msa.variant = AttentionVariant::msa;
    ecoformer::AttentionInputs reference = inputs;
    if (shared_qk) reference.k = reference.q;
    OpCounter discard;
    const double error = ecoformer::relative_frobenius_error(
        result.out.data, ecoformer::run_attention(reference, msa, ecoformer::Device::cpu, seed, discard).out.data);
    if (std::isfinite(error)) {
      error_vs_msa = error;
    } else {  // the reference's scores overflow fp32: no error to give
      no_error_because = "the MSA reference overflows fp32 on these inputs";
      fmt::print(stderr, "warning: error_vs_msa: {}\n", no_error_because);
    }
  }
  const std::string device_name =
      result.device == ecoformer::Device::cuda ? "cuda (" + gpu::probe().device_name + ")" : "cpu";
  const OpCounts& total = counter.total();
  if (format == Format::json) {
    nlohmann::json j = describe(config);
    j["device"] = device_name;
    j["latency_ms"] = result.latency_ms;
    j["muls"] = total.ops(OpKind::mul);
    j["adds"] = total.ops(OpKind::add);
    j["error_vs_msa"] = error_vs_msa ? nlohmann::json(*error_vs_msa) : nlohmann::json(nullptr);
    if (!error_vs_msa) j["error_vs_msa_unavailable"] = no_error_because;
    j["msa_reference"] = shared_qk ? "msa(q, q, v)" : "msa(q, k, v)";
    if (decode_json) j["decode"] = *decode_json;
    j["provenance"] = provenance();
    std::cout << fmt::format("{}\n", j.dump(2));
  } else {
    std::cout << fmt::format("variant       {}  (B={} H={} N={} D={}{})\n", name(config.variant), config.batch,
                             config.heads, config.seq, config.head_dim, config.causal ? ", causal" : "");
    std::cout << fmt::format("device        {}\nlatency_ms    {:.4f}\nmuls          {}\nadds          {}\n",
                             device_name, result.latency_ms, total.ops(OpKind::mul), total.ops(OpKind::add));
    std::cout << fmt::format("error_vs_msa  {} (against {})\n",
                             error_vs_msa ? fmt::format("{:.3e}", *error_vs_msa) : "n/a (" + no_error_because + ")",
                             shared_qk ? "msa(q, q, v): queries and keys are shared" : "msa(q, k, v)");
    if (decode_json) {
      const nlohmann::json& dj = *decode_json;
      std::cout << fmt::format(
          "decode        {} steps after a prefill of {} tokens ({}): {:.4f} ms a step (median), {:.0f} "
          "muls a step, state {} bytes; max |step - causal row| {:.3e}\n",
          dj["steps"].get<std::uint64_t>(), dj["prompt_tokens"].get<std::uint64_t>(), dj["device"].get<std::string>(),
          dj["step_ms_median"].get<double>(), dj["step_muls_mean"].get<double>(),
          dj["state_bytes"].get<std::uint64_t>(), dj["max_abs_diff_vs_causal_rows"].get<double>());
    }
    std::cout << fmt::format("{}", provenance_lines(provenance()));
  }
  return 0;
}

}  // namespace ecosim::cli
