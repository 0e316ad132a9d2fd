// Test support: runs the ecosim binary as a child process from an argument vector, in a given folder, under
// an address-space limit (RLIMIT_AS) and a wall-clock alarm, and reports how it ended and what it printed
// on stderr. Used by the hostile-input suite to prove failures are clean, bounded and leave nothing behind.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

struct ChildOutcome {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;      // the signal that ended it, 0 when it exited
  std::string stderr_text;
};

/// Runs `ecosim args...` in `dir` with stdout discarded (or kept in `stdout_path` when not empty), an
/// address-space limit of `address_space_bytes` and SIGALRM after `seconds`.
ChildOutcome run_ecosim(const std::vector<std::string>& args, const std::filesystem::path& dir,
                        std::uint64_t address_space_bytes, unsigned seconds, const std::string& stdout_path = "");

/// run_ecosim with stdout kept in `dir`/stdout.txt: the outcome and what it printed on stdout.
std::pair<ChildOutcome, std::string> run_ecosim_with_stdout(const std::vector<std::string>& args,
                                                            const std::filesystem::path& dir,
                                                            std::uint64_t address_space_bytes, unsigned seconds);
