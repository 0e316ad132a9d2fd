// `ecosim validate --suite NAME [--device auto|cpu|cuda]`: GPU kernels against their CPU references and
// the mathematical properties each must have; prints a PASS/FAIL/SKIP table, exit 1 on any FAIL.
// `ecosim validate --variant V --input q.npy,k.npy,v.npy --output mine.npy` or `ecosim validate --params DIR
// --output mine.npy`: a user's own kernel output against the CPU reference (validate_output.cpp); exit 1 when
// it fails.
#include <fmt/core.h>

#include <utility>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/sim/commands.hpp"
#include "validate_output.hpp"
#include "validation.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {
// Checks live in validate_<part>.cpp, declared in validation.hpp; every entry whose suite name matches runs.
const std::vector<std::pair<std::string, void (*)(Validation&)>>& suites() {
  static const std::vector<std::pair<std::string, void (*)(Validation&)>> table = {
      {"attention", &validate_attention},
      {"compression", &validate_compression},
      {"compression", &validate_fewbit},
  };
  return table;
}
}  // namespace

int validate(const Args& args) {
  po::options_description options("ecosim validate");
  options.add_options()("help,h", "this help")("suite", po::value<std::string>(), "which suite to run")(
      "device", po::value<std::string>()->default_value("auto"), "auto, cpu or cuda");
  options.add(validate_output_options());
  po::variables_map vm;
  if (!parse_args(args, options, vm,
                  "ecosim validate --suite NAME [--device auto|cpu|cuda]\n"
                  "   or: ecosim validate --variant V --input q.npy,k.npy,v.npy --output mine.npy [--seed S] "
                  "[--causal] [variant parameters] [--rtol R --atol A --output-dtype T]\n"
                  "   or: ecosim validate --params DIR --output mine.npy [--rtol R --atol A --output-dtype T]"))
    return 0;
  const bool checks_output = vm.count("variant") || vm.count("input") || vm.count("output") || vm.count("params");
  if (checks_output && vm.count("suite"))
    throw Error("give either --suite or --variant/--input/--params/--output, not both");
  if (checks_output && !vm["device"].defaulted())
    throw Error("--device applies to --suite: --output is compared with the CPU reference");
  if (checks_output) return validate_output(vm);
  const po::options_description output_options = validate_output_options();
  for (const auto& option : output_options.options())
    if (vm.count(option->long_name()) && !vm[option->long_name()].defaulted())
      throw Error("--" + option->long_name() + " applies to --output, not to --suite");
  std::string valid;
  for (const auto& [name, run] : suites())
    if (valid.find(name) == std::string::npos) valid += (valid.empty() ? "" : ", ") + name;
  if (!vm.count("suite")) throw Error("give --suite (valid: " + valid + ")");
  const std::string suite = vm["suite"].as<std::string>();
  Validation v(resolve_device(vm["device"].as<std::string>()));
  bool known = false;
  for (const auto& [name, run] : suites())
    if (name == suite) {
      known = true;
      run(v);
    }
  if (!known) throw Error("unknown suite '" + suite + "' (valid: " + valid + ")");
  v.print(suite);
  return v.failed() ? 1 : 0;
}

}  // namespace ecosim::cli
