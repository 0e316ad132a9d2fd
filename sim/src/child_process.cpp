// run_program: posix_spawn + waitpid.
#include "child_process.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace ecosim::cli {

ProgramRun run_program(const std::vector<std::string>& argv) {
  if (argv.empty()) return {false, "no program given"};
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));  // posix_spawn does not write
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawn_error = ::posix_spawn(&pid, argv[0].c_str(), nullptr, nullptr, args.data(), environ);
  if (spawn_error != 0) return {false, "cannot start " + argv[0] + ": " + std::strerror(spawn_error)};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return {false, "cannot wait for " + argv[0] + ": " + std::strerror(errno)};
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {true, ""};
  if (WIFEXITED(status)) return {false, argv[0] + " exited with status " + std::to_string(WEXITSTATUS(status))};
  return {false, argv[0] + " was killed by signal " + std::to_string(WTERMSIG(status))};
}

}  // namespace ecosim::cli
