// AtomicFile and termination signals: a process ended by SIGINT or SIGTERM while writing dies of that signal
// (the handler re-raises it) and leaves no temporary behind.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "ecosim/traces/atomic_file.hpp"
#include "temp_folder.hpp"

namespace {

/// Forks a child that opens an AtomicFile in `folder`, writes, checks its temporary is there, then raises
/// `signal_number` at itself; returns the child's wait status.
int status_of_child_interrupted_while_writing(const TempFolder& folder, int signal_number) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::signal(signal_number, SIG_DFL);  // as in ecosim; Catch2 installs its own handlers around each test case
    try {
      ecosim::AtomicFile f(folder / "out.jsonl");
      f.stream() << "partial" << std::flush;
      if (folder.entries().size() != 1) ::_exit(3);  // the temporary should exist now
      ::raise(signal_number);
    } catch (...) {
      ::_exit(4);
    }
    ::_exit(5);  // the signal did not end the process
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

void check_cleanup_on(int signal_number, const char* name) {
  struct sigaction current {};
  ::sigaction(signal_number, nullptr, &current);
  if (current.sa_handler == SIG_IGN) {  // e.g. started in the background by a shell: it stays ignored
    WARN(std::string("SKIPPED: ") + name + " is ignored in this process");
    return;
  }
  const TempFolder folder(std::string("ecosim_atomic_") + name);
  const int status = status_of_child_interrupted_while_writing(folder, signal_number);
  INFO("child exit status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == signal_number);
  CHECK(folder.entries().empty());
}

}  // namespace

TEST_CASE("SIGINT while writing removes the temporary and ends the process by SIGINT") {
  check_cleanup_on(SIGINT, "SIGINT");
}

TEST_CASE("SIGTERM while writing removes the temporary and ends the process by SIGTERM") {
  check_cleanup_on(SIGTERM, "SIGTERM");
}
