// AtomicFile on FIFOs, character devices and symbolic links: devices and FIFOs are written through and stay
// what they are, a full device is a clear error, and a link is followed to its final target.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "temp_folder.hpp"

using namespace ecosim;

namespace {

struct stat lstat_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::lstat(path.c_str(), &st) == 0);
  return st;
}

/// A character device with the numbers of `system_path` (1,3 /dev/null; 1,7 /dev/full). As root it is made in
/// the test's folder, so a broken writer could only ever replace that copy; otherwise the system's own (which
/// a non-root writer cannot replace). nullopt, with a visible SKIPPED line, when neither is possible.
std::optional<std::string> char_device(const TempFolder& folder, const std::string& system_path, unsigned device_major,
                                       unsigned device_minor) {
  if (::geteuid() != 0) {
    if (::access(system_path.c_str(), W_OK) == 0) return system_path;
    WARN("SKIPPED: " + system_path + " is not present or not writable");
    return std::nullopt;
  }
  const std::string path = folder / ("dev" + std::to_string(device_minor));
  if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(device_major, device_minor)) == 0) return path;
  WARN("SKIPPED: root, but mknod " + path + " failed (" + std::strerror(errno) + "); the system's " + system_path +
       " is not written as root");
  return std::nullopt;
}

void check_char_device(const std::string& path, unsigned device_major, unsigned device_minor) {
  const struct stat st = lstat_of(path);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(major(st.st_rdev) == device_major);
  CHECK(minor(st.st_rdev) == device_minor);
}

}  // namespace

TEST_CASE("a FIFO is written through to its reader and stays a FIFO") {
  const TempFolder folder("ecosim_atomic_fifo");
  const std::string fifo = folder / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] {
    std::ifstream in(fifo, std::ios::binary);
    received.assign(std::istreambuf_iterator<char>(in), {});
  });
  const std::string text(100000, 'x');  // more than the pipe buffer and the writer's buffer
  write_file_atomically(fifo, text);
  reader.join();
  CHECK(received == text);
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));
  CHECK(folder.entries() == std::vector<std::string>{"pipe"});  // no temporary was made
}

TEST_CASE("a FIFO nobody reads is a clear error after a bounded wait, not a hang") {
  const TempFolder folder("ecosim_atomic_fifo_alone");
  const std::string fifo = folder / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(AtomicFile(fifo), Catch::Contains("no process is reading the FIFO"));
  CHECK(S_ISFIFO(lstat_of(fifo).st_mode));
  CHECK(folder.entries() == std::vector<std::string>{"pipe"});
}

TEST_CASE("a character device (null) is written through and stays a device") {
  const TempFolder folder("ecosim_atomic_null");
  const auto device = char_device(folder, "/dev/null", 1, 3);
  if (!device) return;
  write_file_atomically(*device, "discarded\n");
  check_char_device(*device, 1, 3);
}

TEST_CASE("a full device (full) is a clear error and stays a device") {
  const TempFolder folder("ecosim_atomic_full");
  const auto device = char_device(folder, "/dev/full", 1, 7);
  if (!device) return;
  CHECK_THROWS_WITH(write_file_atomically(*device, "lost\n"),
                    "cannot write '" + *device + "': " + std::strerror(ENOSPC));
  check_char_device(*device, 1, 7);
}

TEST_CASE("a symbolic link is followed: its target is replaced, the link stays a link") {
  const TempFolder folder("ecosim_atomic_symlink");
  write_file_atomically(folder / "target.txt", "old");
  REQUIRE(::symlink("target.txt", (folder / "link").c_str()) == 0);
  write_file_atomically(folder / "link", "new");
  CHECK(S_ISLNK(lstat_of(folder / "link").st_mode));
  CHECK(folder.read("target.txt") == "new");

  SECTION("a dangling link creates its target") {
    REQUIRE(::symlink("created.txt", (folder / "dangling").c_str()) == 0);
    write_file_atomically(folder / "dangling", "fresh");
    CHECK(S_ISLNK(lstat_of(folder / "dangling").st_mode));
    CHECK(folder.read("created.txt") == "fresh");
  }
  SECTION("a chain of links ends at a FIFO, written through") {
    REQUIRE(::mkfifo((folder / "pipe").c_str(), 0600) == 0);
    REQUIRE(::symlink("pipe", (folder / "to_pipe").c_str()) == 0);
    REQUIRE(::symlink("to_pipe", (folder / "to_to_pipe").c_str()) == 0);
    std::string received;
    std::thread reader([&] {
      std::ifstream in(folder / "pipe", std::ios::binary);
      received.assign(std::istreambuf_iterator<char>(in), {});
    });
    write_file_atomically(folder / "to_to_pipe", "through");
    reader.join();
    CHECK(received == "through");
    CHECK(S_ISFIFO(lstat_of(folder / "pipe").st_mode));
  }
  SECTION("a loop of links is a clear error") {
    REQUIRE(::symlink("loop_b", (folder / "loop_a").c_str()) == 0);
    REQUIRE(::symlink("loop_a", (folder / "loop_b").c_str()) == 0);
    CHECK_THROWS_WITH(AtomicFile(folder / "loop_a"), Catch::Contains(std::strerror(ELOOP)));
  }
}

TEST_CASE("a descriptor a shell opened (/dev/stderr, /proc/self/fd/N) is refused, not replaced by a rename") {
  // `-o /dev/stdout >> log` renamed a new file over log, losing what was in it; the standard output is written
  // as `-` is, another descriptor refused
  const TempFolder folder("ecosim_atomic_descriptor");
  write_file_atomically(folder / "log.txt", "precious\n");
  const int fd = ::open((folder / "log.txt").c_str(), O_WRONLY | O_APPEND);
  REQUIRE(fd >= 0);
  const std::string descriptor = "/proc/self/fd/" + std::to_string(fd);
  CHECK_THROWS_WITH(AtomicFile(descriptor),
                    Catch::Contains("it is descriptor " + std::to_string(fd) + " of this process"));
  CHECK_THROWS_WITH(AtomicFile("/dev/fd/" + std::to_string(fd)), Catch::Contains("descriptor"));
  ::close(fd);
  CHECK(folder.read("log.txt") == "precious\n");
  CHECK(AtomicFile("/dev/stdout").stream().rdbuf() == std::cout.rdbuf());
}
