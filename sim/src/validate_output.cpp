// `validate --output`: recomputes the CPU reference for the given inputs (the kernel `ecosim run` runs, with
// the same --seed for its random parameters) and compares the user's array with it. It passes when it holds
// no NaN/Inf and both max |mine − ref| / max |ref| and ‖mine − ref‖_F / ‖ref‖_F are within the variant's
// kernel_tolerance; the shape must equal the reference's [batch, heads, seq, dim].
#include "validate_output.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "attention_npy.hpp"
#include "ecosim/ecoformer/reference.hpp"
#include "ecosim/ecoformer/run.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "validate_attention.hpp"
#include "variant_parameters.hpp"
#include "work_limits.hpp"

namespace ecosim::cli {

namespace po = boost::program_options;

namespace {

std::string shape_text(const ecoformer::Tensor& t) {
  return fmt::format("[{}, {}, {}, {}]", t.batch, t.heads, t.seq, t.dim);
}

std::uint64_t count_non_finite(const std::vector<float>& x) {
  return static_cast<std::uint64_t>(std::count_if(x.begin(), x.end(), [](float v) { return !std::isfinite(v); }));
}

double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double{a[i]} - b[i]));
  return worst;
}

}  // namespace

po::options_description validate_output_options() {
  po::options_description options("checking your own kernel's output");
  options.add_options()("variant", po::value<std::string>(), "the attention variant the output is of")(
      "input", po::value<std::string>(), "q.npy,k.npy,v.npy: float32 [batch, heads, seq, dim], as `run --input`")(
      "output", po::value<std::string>(), "your output: .npy, float32 [batch, heads, seq, dim]")(
      "seed", po::value<std::uint64_t>()->default_value(0), "seed of the random parameters, as `run --seed`");
  options.add(variant_parameter_options());
  options.add(work_limit_options());
  return options;
}

int validate_output(const po::variables_map& vm) {
  for (const char* key : {"variant", "input", "output"})
    if (!vm.count(key))
      throw Error(std::string("give --variant, --input and --output together (missing --") + key + ")");
  AttentionConfig config;
  config.variant = attention_variant_named(vm["variant"].as<std::string>());
  if (!ecoformer::has_kernel(config.variant))
    throw Error(std::string(name(config.variant)) + " is count-only: it has no kernel to compare with");
  config.projections = false;
  read_variant_parameters(vm, config);
  check_parameters_apply(vm, std::vector<AttentionVariant>{config.variant});
  const WorkLimits limits = parse_work_limits(vm);

  const ecoformer::AttentionInputs inputs = read_attention_inputs(vm["input"].as<std::string>());
  config.batch = inputs.q.batch, config.heads = inputs.q.heads, config.seq = inputs.q.seq;
  config.head_dim = inputs.q.dim;
  config.validate();
  check_attention_kernel(limits, config, false);
  const ecoformer::Tensor mine = read_attention_tensor(vm["output"].as<std::string>());

  OpCounter discard;
  const ecoformer::Tensor ref =
      ecoformer::run_attention(inputs, config, ecoformer::Device::cpu, vm["seed"].as<std::uint64_t>(), discard).out;
  if (std::tie(mine.batch, mine.heads, mine.seq, mine.dim) != std::tie(ref.batch, ref.heads, ref.seq, ref.dim))
    throw Error(vm["output"].as<std::string>() + ": shape " + shape_text(mine) + " differs from the reference's " +
                shape_text(ref));
  if (const std::uint64_t bad = count_non_finite(ref.data))
    throw Error(fmt::format("the reference output holds {} NaN/Inf values: the inputs are not usable", bad));

  const double tolerance = kernel_tolerance(config.variant);
  const std::uint64_t non_finite = count_non_finite(mine.data);
  const double max_abs = max_abs_difference(mine.data, ref.data);
  const double max_relative = ecoformer::max_relative_error(mine.data, ref.data);
  const double frobenius = ecoformer::relative_frobenius_error(mine.data, ref.data);
  const bool pass = non_finite == 0 && max_relative <= tolerance && frobenius <= tolerance;
  fmt::print("variant            {}  (B={} H={} N={} D={}, seed {})\n", name(config.variant), config.batch,
             config.heads, config.seq, config.head_dim, vm["seed"].as<std::uint64_t>());
  fmt::print("non_finite         {}\n", non_finite);
  fmt::print("max_abs_error      {:.3e}  (relative to max |ref|: {:.3e}, tolerance {:.0e})\n", max_abs, max_relative,
             tolerance);
  fmt::print("rel_frobenius      {:.3e}  (tolerance {:.0e})\n", frobenius, tolerance);
  const std::string why = non_finite ? fmt::format(" ({} NaN/Inf values)", non_finite) : "";
  fmt::print("result             {}\n", pass ? "PASS" : "FAIL" + why);
  return pass ? 0 : 1;
}

}  // namespace ecosim::cli
