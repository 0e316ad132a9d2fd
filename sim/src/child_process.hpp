// Starts another program with an argument vector, never through a shell: every argument reaches the program
// exactly as given (quotes, `$()`, spaces and leading dashes are just characters).
#pragma once
#include <string>
#include <vector>

namespace ecosim::cli {

struct ProgramRun {
  bool succeeded = false;  // started and exited with status 0
  std::string failure;     // otherwise why: "cannot start ...", "exited with status 1", "killed by signal 9"
};

/// Runs argv[0] (an absolute path: no PATH search) with arguments argv[1..], inheriting the environment and
/// standard streams, and waits for it to end.
ProgramRun run_program(const std::vector<std::string>& argv);

}  // namespace ecosim::cli
