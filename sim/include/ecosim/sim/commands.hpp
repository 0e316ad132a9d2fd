// The ecosim subcommands: each takes its arguments (after the subcommand name), prints its results and
// returns the process exit code; bad input throws ecosim::Error (main prints it and exits 2).
#pragma once
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ecosim::cli {

using Args = std::vector<std::string>;

struct Command {
  std::string_view name;
  std::string_view summary;
  int (*run)(const Args& args);
};

std::span<const Command> commands();
/// Runs `ecosim <args...>` (args without the program name); returns the exit code.
int main(const Args& args);
/// Runs the command args[0] with the arguments after it, recording the command line for the reports'
/// provenance, as main() does, but lets its errors reach the caller (ecosim::Error, the option parser's
/// errors; the Python package raises them as ecosim.Error). Throws ecosim::Error for an unknown command.
int run_command(const Args& args);

int count(const Args& args);
int trace(const Args& args);
int validate(const Args& args);
int compress(const Args& args);
int run(const Args& args);
int fewbit(const Args& args);
int replay(const Args& args);
int compare(const Args& args);
int crossover(const Args& args);
int sweep(const Args& args);
int gpu_time(const Args& args);
int train(const Args& args);

}  // namespace ecosim::cli
