// `validate --output`: recomputes the CPU reference for the given inputs — with the kernel parameters of a
// saved folder (--params DIR, no re-seeding), or those `ecosim run` draws from --seed — and compares the
// user's array (float32, float16, or bfloat16 bits) with it. It passes when it holds no NaN/Inf, max |mine − ref|
// ≤ atol + rtol·max |ref| and RMS(mine − ref) ≤ atol + rtol·RMS(ref); rtol defaults to default_rtol of the
// output's precision (tolerance.hpp), atol to 0. The shape must equal the reference's [batch, heads, seq, dim].
#include "validate_output.hpp"

#include <fmt/core.h>
#include <fmt/ostream.h>
#include <iostream>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "../workload.hpp"
#include "attention_npy.hpp"
#include "ecosim/ecoformer/kernel_parameters.hpp"
#include "ecosim/ecoformer/reference.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "non_finite.hpp"
#include "saved_inputs.hpp"
#include "tolerance.hpp"
#include "variant_parameters.hpp"
#include "work_limits.hpp"

namespace ecosim::cli {

namespace po = boost::program_options;

namespace {

using ecoformer::NpyDtype;

std::string shape_text(const ecoformer::Tensor& t) {
  return fmt::format("[{}, {}, {}, {}]", t.batch, t.heads, t.seq, t.dim);
}

double max_abs(const std::vector<float>& a) {
  double worst = 0;
  for (float x : a) worst = std::max(worst, std::abs(double{x}));
  return worst;
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double{a[i]} - b[i]));
  return worst;
}

double rms(const std::vector<float>& a) {
  double sum = 0;
  for (float x : a) sum += double{x} * x;
  return std::sqrt(sum / static_cast<double>(a.size()));
}

double rms_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (double{a[i]} - b[i]) * (double{a[i]} - b[i]);
  return std::sqrt(sum / static_cast<double>(a.size()));
}

NpyDtype precision_named(const std::string& text) {
  for (NpyDtype d : {NpyDtype::float32, NpyDtype::float16, NpyDtype::bfloat16})
    if (ecoformer::dtype_name(d) == text) return d;
  throw Error("--output-dtype must be float32, float16 or bfloat16, got '" + text + "'");
}

/// The precision the output was computed in: --output-dtype, or the file's dtype. A '<u2' file is bfloat16
/// bits only when --output-dtype bfloat16 says so; float32 values may hold a float16/bfloat16 result, a
/// float16 file cannot hold another precision.
NpyDtype output_precision(const po::variables_map& vm, NpyDtype stored, const std::string& path) {
  if (!vm.count("output-dtype")) {
    if (stored == NpyDtype::bfloat16)
      throw Error(path + ": uint16 ('<u2') data; if it holds bfloat16 bits, say --output-dtype bfloat16");
    return stored;
  }
  const NpyDtype said = precision_named(vm["output-dtype"].as<std::string>());
  if (said != stored && stored != NpyDtype::float32)
    throw Error(fmt::format("{}: stored as {} ('{}'), which cannot hold --output-dtype {}", path,
                            ecoformer::dtype_name(stored), stored == NpyDtype::float16 ? "<f2" : "<u2",
                            ecoformer::dtype_name(said)));
  return said;
}

double tolerance_option(const po::variables_map& vm, const char* key, double otherwise) {
  if (!vm.count(key)) return otherwise;
  const double value = vm[key].as<double>();
  if (!std::isfinite(value) || value < 0) throw Error(fmt::format("--{} must be finite and ≥ 0, got {}", key, value));
  return value;
}

/// The variant, inputs and kernel parameters of a saved folder; options that would contradict it are errors.
SavedInputs saved_problem(const po::variables_map& vm, const WorkLimits& limits) {
  const std::string dir = vm["params"].as<std::string>();
  if (vm.count("input")) throw Error("give --input or --params, not both: --params " + dir + " holds q, k and v");
  if (!vm["seed"].defaulted()) throw Error("--seed does not apply to --params: the parameters are read, not drawn");
  for (const VariantParameter& p : kVariantParameters)
    if (!vm[p.option()].defaulted())
      throw Error("--" + p.option() + " does not apply to --params: the variant's parameters come from " + dir + "/" +
                  kManifestFile);
  if (vm.count("causal"))
    throw Error("--causal does not apply to --params: " + dir + "/" + kManifestFile +
                " says whether its run was causal");
  SavedInputs saved = read_saved_manifest(dir);
  if (vm.count("variant") && attention_variant_named(vm["variant"].as<std::string>()) != saved.config.variant)
    throw Error(fmt::format("--variant {} disagrees with {}/{}, which holds {}", vm["variant"].as<std::string>(), dir,
                            kManifestFile, name(saved.config.variant)));
  if (!ecoformer::has_kernel(saved.config.variant))
    throw Error(std::string(name(saved.config.variant)) + " is count-only: it has no kernel to compare with");
  check_attention_kernel(limits, saved.config, false);  // before the arrays are read
  read_saved_arrays(dir, saved);
  return saved;
}

/// The variant from --variant and its parameters, inputs from --input, parameters drawn from --seed.
SavedInputs seeded_problem(const po::variables_map& vm, const WorkLimits& limits) {
  for (const char* key : {"variant", "input"})
    if (!vm.count(key))
      throw Error(std::string("give --variant, --input and --output together, or --params and --output (missing --") +
                  key + ")");
  SavedInputs problem;
  AttentionConfig& config = problem.config;
  config.variant = attention_variant_named(vm["variant"].as<std::string>());
  if (!ecoformer::has_kernel(config.variant))
    throw Error(std::string(name(config.variant)) + " is count-only: it has no kernel to compare with");
  config.projections = false;
  config.causal = vm.count("causal") > 0;
  read_variant_parameters(vm, config);
  check_parameters_apply(vm, std::vector<AttentionVariant>{config.variant});
  problem.inputs = read_attention_inputs(vm["input"].as<std::string>());
  config.batch = problem.inputs.q.batch, config.heads = problem.inputs.q.heads, config.seq = problem.inputs.q.seq;
  config.head_dim = problem.inputs.q.dim;
  config.validate();
  check_attention_kernel(limits, config, false);
  problem.seed = non_negative(vm, "seed");
  problem.parameters = ecoformer::draw_kernel_parameters(problem.inputs, config, problem.seed);
  return problem;
}

}  // namespace

po::options_description validate_output_options() {
  po::options_description options("checking your own kernel's output");
  options.add_options()("variant", po::value<std::string>(), "the attention variant the output is of")(
      "input", po::value<std::string>(),
      "q.npy,k.npy,v.npy: float32 or float16 [batch, heads, seq, dim], as `run --input`")(
      "params", po::value<std::string>(),
      "a folder of `run --save-inputs`: its variant, q, k, v and kernel parameters (instead of --input, --seed)")(
      "output", po::value<std::string>(),
      "your output: .npy [batch, heads, seq, dim], float32, float16, or bfloat16 bits as uint16")(
      "output-dtype", po::value<std::string>(),
      "the precision your output was computed in: float32, float16 or bfloat16 (default: the file's dtype; "
      "required as bfloat16 for uint16 data)")(
      "rtol", po::value<double>(), "relative tolerance (default: from the variant and the output's precision)")(
      "atol", po::value<double>(), "absolute tolerance added to rtol's bound (default 0)")(
      "seed", po::value<std::int64_t>()->default_value(0), "seed of the random parameters, as `run --seed`")(
      "causal", "the output is of causal attention, as `run --causal` (a --params folder's manifest says it itself)");
  options.add(variant_parameter_options());
  options.add(work_limit_options());
  return options;
}

int validate_output(const po::variables_map& vm) {
  if (!vm.count("output")) throw Error("give --output mine.npy (with --variant and --input, or with --params)");
  const WorkLimits limits = parse_work_limits(vm);
  const SavedInputs problem = vm.count("params") ? saved_problem(vm, limits) : seeded_problem(vm, limits);
  const AttentionConfig& config = problem.config;
  const std::string output = vm["output"].as<std::string>();
  const ecoformer::NpyArray stored = ecoformer::read_npy(output, ecoformer::Uint16Data::bfloat16_bits);
  const NpyDtype precision = output_precision(vm, stored.dtype, output);
  if (stored.shape.size() != 4)
    throw Error(output + ": expected a 4-dimensional array [batch, heads, seq, dim], got " +
                std::to_string(stored.shape.size()) + " dimensions");
  const ecoformer::Tensor mine{stored.shape[0], stored.shape[1], stored.shape[2], stored.shape[3], stored.data};

  OpCounter discard;
  const ecoformer::Tensor ref =
      ecoformer::run_attention(problem.inputs, config, ecoformer::Device::cpu, problem.parameters, discard).out;
  if (std::tie(mine.batch, mine.heads, mine.seq, mine.dim) != std::tie(ref.batch, ref.heads, ref.seq, ref.dim))
    throw Error(output + ": shape " + shape_text(mine) + " differs from the reference's " + shape_text(ref));
  if (const std::uint64_t bad = count_non_finite(ref.data))
    throw Error(fmt::format("the reference output holds {} NaN/Inf values: the inputs are not usable", bad));

  const double rtol = tolerance_option(vm, "rtol", default_rtol(config, precision));
  const double atol = tolerance_option(vm, "atol", 0.0);
  const std::uint64_t non_finite = count_non_finite(mine.data);
  const double max_error = max_abs_difference(mine.data, ref.data), max_ref = max_abs(ref.data);
  const double rms_error = rms_difference(mine.data, ref.data), rms_ref = rms(ref.data);
  const bool pass = non_finite == 0 && max_error <= atol + rtol * max_ref && rms_error <= atol + rtol * rms_ref;
  const auto relative = [](double error, double scale) { return scale > 0 ? error / scale : error; };
  fmt::print(
      std::cout, "variant            {}  (B={} H={} N={} D={}{}, {})\n", name(config.variant), config.batch,
      config.heads, config.seq, config.head_dim, config.causal ? ", causal" : "",
      vm.count("params") ? "parameters from " + vm["params"].as<std::string>() : fmt::format("seed {}", problem.seed));
  fmt::print(std::cout, "output             {}{}\n", ecoformer::dtype_name(stored.dtype),
             precision == stored.dtype ? "" : fmt::format(", holding a {} result", ecoformer::dtype_name(precision)));
  fmt::print(std::cout, "non_finite         {}\n", non_finite);
  // (an error over values some of which are NaN/Inf measures nothing)
  const auto shown = [&](double x) { return non_finite ? std::string("n/a") : fmt::format("{:.3e}", x); };
  fmt::print(std::cout, "max_abs_error      {}  (relative to max |ref|: {}, tolerance {:.3e})\n", shown(max_error),
             shown(relative(max_error, max_ref)), relative(atol + rtol * max_ref, max_ref));
  fmt::print(std::cout, "rel_frobenius      {}  (tolerance {:.3e})\n", shown(relative(rms_error, rms_ref)),
             relative(atol + rtol * rms_ref, rms_ref));
  fmt::print(std::cout, "rtol, atol         {:.3e}, {:.3e}  ({})\n", rtol, atol,
             vm.count("rtol") ? std::string("rtol given")
                              : fmt::format("default rtol for {} output, L = {}", ecoformer::dtype_name(precision),
                                            reduction_length(config)));
  const std::string why = non_finite ? fmt::format(" ({} NaN/Inf values)", non_finite) : "";
  fmt::print(std::cout, "result             {}\n", pass ? "PASS" : "FAIL" + why);
  return pass ? 0 : 1;
}

}  // namespace ecosim::cli
