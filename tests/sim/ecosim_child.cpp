// fork + setrlimit + execv of the ecosim binary, with stderr captured through a pipe.
#include "ecosim_child.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

ChildOutcome run_ecosim(const std::vector<std::string>& args, const std::filesystem::path& dir,
                        std::uint64_t address_space_bytes, unsigned seconds, const std::string& stdout_path) {
  std::vector<std::string> argv_strings = {ECOSIM_EXE};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  int err_pipe[2];
  if (::pipe(err_pipe) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {  // child: only async-signal-safe calls until execv
    ::close(err_pipe[0]);
    ::dup2(err_pipe[1], 2);
    const int out = stdout_path.empty() ? ::open("/dev/null", O_WRONLY)
                                        : ::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(out, 1);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const rlimit limit{address_space_bytes, address_space_bytes};
    ::setrlimit(RLIMIT_AS, &limit);
    ::alarm(seconds);  // survives execv: a hang ends in SIGALRM
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(err_pipe[1]);
  ChildOutcome outcome;
  char buffer[4096];
  for (ssize_t n; (n = ::read(err_pipe[0], buffer, sizeof buffer)) > 0;) outcome.stderr_text.append(buffer, n);
  ::close(err_pipe[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

std::pair<ChildOutcome, std::string> run_ecosim_with_stdout(const std::vector<std::string>& args,
                                                            const std::filesystem::path& dir,
                                                            std::uint64_t address_space_bytes, unsigned seconds) {
  const std::string out = (dir / "stdout.txt").string();
  const ChildOutcome outcome = run_ecosim(args, dir, address_space_bytes, seconds, out);
  std::ostringstream text;
  text << std::ifstream(out).rdbuf();
  return {outcome, text.str()};
}
