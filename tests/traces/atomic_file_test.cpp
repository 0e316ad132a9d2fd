// AtomicFile on regular files and standard output: the target appears only on commit, keeps its permission
// bits, temporaries have unpredictable names and never outlive an error, and bad paths are clear errors.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <stdexcept>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "temp_folder.hpp"

using namespace ecosim;

namespace {

mode_t permission_bits(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("atomic file replaces the target only on commit") {
  const TempFolder folder("ecosim_atomic_commit");
  const std::string path = folder / "out.txt";
  write_file_atomically(path, "old");
  {
    AtomicFile f(path);
    f.stream() << "new";
    CHECK(folder.read("out.txt") == "old");  // not yet committed
  }
  CHECK(folder.read("out.txt") == "old");
  CHECK(folder.entries() == std::vector<std::string>{"out.txt"});  // the uncommitted temporary is gone
  write_file_atomically(path, "new");
  CHECK(folder.read("out.txt") == "new");
}

TEST_CASE("a new file gets 0666 less the umask, like a plain create") {
  const TempFolder folder("ecosim_atomic_new_mode");
  const mode_t previous = ::umask(027);
  write_file_atomically(folder / "new.txt", "x");
  ::umask(previous);
  CHECK(permission_bits(folder / "new.txt") == 0640);
}

TEST_CASE("replacing a regular file keeps its permission bits, never set-id bits") {
  const TempFolder folder("ecosim_atomic_keep_mode");
  const std::string secret = folder / "secret.txt", tool = folder / "tool";
  write_file_atomically(secret, "old");
  write_file_atomically(tool, "old");
  REQUIRE(::chmod(secret.c_str(), 0600) == 0);
  REQUIRE(::chmod(tool.c_str(), 04755) == 0);
  write_file_atomically(secret, "new");
  write_file_atomically(tool, "new");
  CHECK(permission_bits(secret) == 0600);
  CHECK(permission_bits(tool) == 0755);
  CHECK(folder.read("secret.txt") == "new");
}

TEST_CASE("'-' writes to standard output, with no file") {
  const TempFolder folder("ecosim_atomic_stdout");
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int capture = ::open((folder / "captured").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  REQUIRE((saved >= 0 && capture >= 0));
  ::dup2(capture, STDOUT_FILENO);
  std::printf("before ");  // stdio and the AtomicFile keep their order
  write_file_atomically("-", "trace\n");
  std::fflush(stdout);
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(capture);
  CHECK(folder.read("captured") == "before trace\n");
  CHECK(folder.entries() == std::vector<std::string>{"captured"});
}

TEST_CASE("temporaries have unpredictable names, different for two writers of one target") {
  const TempFolder folder("ecosim_atomic_names");
  {
    AtomicFile a(folder / "out.txt"), b(folder / "out.txt");
    const std::vector<std::string> temps = folder.entries();
    REQUIRE(temps.size() == 2);
    CHECK(temps[0] != temps[1]);
    for (const std::string& t : temps) {
      CHECK(t != "out.txt.tmp." + std::to_string(::getpid()));  // the old, guessable name
      CHECK(t.rfind(".out.txt.", 0) == 0);                      // hidden, beside the target
      REQUIRE(t.size() == std::string(".out.txt.").size() + 16 + std::string(".tmp").size());
      CHECK(t.find_first_not_of("0123456789abcdef", 9) == 9 + 16);  // 64 random bits in hex
    }
  }
  CHECK(folder.entries().empty());
}

TEST_CASE("no temporary is left after an exception") {
  const TempFolder folder("ecosim_atomic_exception");
  try {
    AtomicFile f(folder / "out.txt");
    f.stream() << "partial" << std::flush;
    REQUIRE(folder.entries().size() == 1);  // the temporary holds the partial output
    throw std::runtime_error("the work failed");
  } catch (const std::runtime_error&) {}
  CHECK(folder.entries().empty());
}

TEST_CASE("a missing folder, a directory and a file used as a folder are clear errors") {
  const TempFolder folder("ecosim_atomic_errors");
  write_file_atomically(folder / "file", "x");
  CHECK_THROWS_WITH(AtomicFile(folder / "missing/x.json"),
                    Catch::Contains("cannot write '" + folder / "missing/x.json" + "': No such file or directory"));
  CHECK_THROWS_WITH(AtomicFile(folder / ""), Catch::Contains("Is a directory"));
  CHECK_THROWS_WITH(AtomicFile(folder / "file/x"), Catch::Contains("Not a directory"));
  CHECK_THROWS_WITH(AtomicFile(""), Catch::Contains("empty output path"));
  CHECK(folder.entries() == std::vector<std::string>{"file"});
}
