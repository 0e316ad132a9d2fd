// Subcommand table and top-level dispatch: --help, help [command], --version, error reporting and exit codes.
#include "ecosim/sim/commands.hpp"

#include <fmt/core.h>
#include <fmt/ostream.h>
#include <array>
#include <boost/program_options/errors.hpp>
#include <cstdio>
#include <iostream>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/input_files.hpp"
#include "provenance.hpp"

namespace ecosim::cli {

namespace {
constexpr std::array kCommands = {
    Command{"compress", "compress an activation tensor (ActNN, GACT, Mesa, Few-Bit): bits, ratio, error, time",
            &compress},
    Command{"compare", "every attention variant on GPU and the 45 nm accelerator: counts, latency, energy", &compare},
    Command{"crossover",
            "a decoder's per-token decode (or prefill) cost over contexts per variant, and where each "
            "overtakes MSA",
            &crossover},
    Command{"gpu-time", "one op on a named GPU as the GPU model costs it: attention, GEMM, copy, softmax, norm",
            &gpu_time},
    Command{"count", "count ops and energy of a model, one attention layer, or a trace", &count},
    Command{"trace", "write the analytic op trace of a model or an attention layer", &trace},
    Command{"fewbit", "solve the Few-Bit Backward quantiser of an activation's derivative", &fewbit},
    Command{"replay", "replay a trace on the SystemC BitFusion-like accelerator: cycles, latency, energy", &replay},
    Command{"sweep", "design-space sweep: accelerator configurations × workloads × variants, Pareto plots", &sweep},
    Command{"run", "run one attention kernel: latency, instrumented op counts, error against MSA", &run},
    Command{"train", "one training step of a model: forward, backward and update ops, activation and peak memory",
            &train},
    Command{"validate", "check GPU kernels against CPU references and their mathematical properties", &validate},
};

void usage() {
  fmt::print(std::cout,
             "ecosim {} — what attention variants and activation compression cost, on GPU and a 45 nm "
             "accelerator\n\nusage: ecosim <command> [options]   (ecosim help <command> or ecosim <command> --help for "
             "its options)\n\n",
             ECOSIM_VERSION);
  for (const auto& c : kCommands) fmt::print(std::cout, "  {:<10} {}\n", c.name, c.summary);
}

const Command* find(std::string_view name) {
  for (const auto& c : kCommands)
    if (c.name == name) return &c;
  return nullptr;
}

std::string unknown_command(const std::string& name) {
  std::string valid;
  for (const auto& c : kCommands) valid += (valid.empty() ? "" : ", ") + std::string(c.name);
  return "unknown command '" + name + "' (valid: " + valid + ")";
}

constexpr const char* kStdoutLost =
    "cannot write the standard output (a full disk, a file size limit or a closed pipe)";

/// Whether everything printed reached the standard output: a full disk or a closed pipe is an error, not a report
/// cut short with success.
bool stdout_reached() {
  std::cout.flush();
  return std::cout && std::fflush(stdout) == 0 && !std::ferror(stdout);
}

/// The exit status of a usage or version text: 0 once it reached the standard output.
int printed() {
  if (stdout_reached()) return 0;
  fmt::print(stderr, "ecosim: error: {}\n", kStdoutLost);
  return 2;
}

}  // namespace

std::span<const Command> commands() { return kCommands; }

int run_command(const Args& args) {
  const InputFilesScope inputs;  // an output never replaces this command's inputs
  if (args.empty()) throw Error("no command given");
  const Command* command = find(args[0]);
  if (command == nullptr) throw Error(unknown_command(args[0]));
  set_command_line(args);
  return command->run(Args(args.begin() + 1, args.end()));
}

int main(const Args& args) {
  set_command_line(args);
  if (args.empty()) {
    usage();
    fmt::print(stderr, "ecosim: error: no command given\n");
    return 2;
  }
  if (args[0] == "help" && args.size() > 2) {
    fmt::print(stderr, "ecosim: error: help takes one command (ecosim help <command>), got {}\n", args.size() - 1);
    return 2;
  }
  if (args[0] == "help" && args.size() == 2) return main({args[1], "--help"});  // `ecosim help compare`
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    usage();
    return printed();
  }
  if (args[0] == "--version") {
    fmt::print(std::cout, "ecosim {}\n", ECOSIM_VERSION);
    return printed();
  }
  const Command* command = find(args[0]);
  if (command == nullptr) {
    fmt::print(stderr, "ecosim: error: {}\n", unknown_command(args[0]));
    return 2;
  }
  try {
    const InputFilesScope inputs;  // an output never replaces this command's inputs
    const int rc = command->run(Args(args.begin() + 1, args.end()));
    if (!stdout_reached()) throw Error(kStdoutLost);
    return rc;
  } catch (const Error& e) {
    fmt::print(stderr, "ecosim {}: error: {}\n", command->name, e.what());
  } catch (const boost::program_options::error& e) {
    fmt::print(stderr, "ecosim {}: error: {} (see ecosim {} --help)\n", command->name, e.what(), command->name);
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "ecosim {}: error: out of memory\n", command->name);
  } catch (const std::exception& e) {  // a library or device failure (CUDA, thrust, SystemC)
    fmt::print(stderr, "ecosim {}: error: {}\n", command->name, e.what());
  }
  return 2;
}

}  // namespace ecosim::cli
