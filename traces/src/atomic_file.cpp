// AtomicFile: exclusive temporary + rename for files, direct writes for standard output, devices and FIFOs.
#include "ecosim/traces/atomic_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "ecosim/ops_counter/input_files.hpp"
#include "fd_streambuf.hpp"
#include "output_target.hpp"
#include "temp_registry.hpp"

namespace ecosim {

namespace {

constexpr int kTempNameAttempts = 16;  // a clash of 64 random bits means someone is guessing; stop soon
constexpr int kFifoReaderWaitMs = 5000, kFifoPollMs = 10;  // a FIFO's reader may open it a little later
constexpr std::size_t kTempStemChars = 100;                // keeps the temporary's name under NAME_MAX for long targets

/// `<folder>/.<name>.<16 random hex digits>.tmp`, absolute.
std::string temp_path_beside(const std::string& target) {
  std::uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits))
    throw detail::cannot_write(target, std::string("no random bytes: ") + std::strerror(errno));
  char suffix[17];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(bits));
  const std::filesystem::path p = std::filesystem::absolute(target);
  const std::string name = p.filename().string().substr(0, kTempStemChars);
  return (p.parent_path() / ("." + name + "." + std::string(suffix) + ".tmp")).string();
}

/// Opens a device or FIFO for writing. A FIFO without a reader is given kFifoReaderWaitMs to get one (then
/// ENXIO) instead of blocking forever; the descriptor is returned in blocking mode.
int open_write_through(const std::string& path) {
  for (int waited_ms = 0;; waited_ms += kFifoPollMs) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      if (::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0) return fd;
      const int error = errno;
      ::close(fd);
      errno = error;
      return -1;
    }
    if (errno != ENXIO || waited_ms >= kFifoReaderWaitMs) return -1;
    ::usleep(kFifoPollMs * 1000);
  }
}

/// The mode a plain create would give: 0666 less the umask (which can only be read by setting it).
mode_t default_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), out_(nullptr) {
  if (path_.empty()) throw Error("empty output path");
  const detail::OutputTarget target = detail::resolve_output(path_);
  target_ = target.path;
  refuse_input_target();
  if (target.kind == detail::OutputKind::standard_output) {
    out_.rdbuf(std::cout.rdbuf());  // synchronised with stdio, so it keeps its place among printed lines
    return;
  }
  if (target.kind == detail::OutputKind::write_through) {
    const int fd = open_write_through(target_);
    if (fd < 0)
      throw detail::cannot_write(path_, errno == ENXIO ? "no process is reading the FIFO" : std::strerror(errno));
    file_ = std::make_unique<detail::FdStreamBuf>(fd);
    out_.rdbuf(file_.get());
    return;
  }
  for (int attempt = 0; !file_; ++attempt) {
    const std::string candidate = temp_path_beside(target_);
    const detail::TerminationSignalsBlocked blocked;  // created and registered as one step
    const int fd = ::open(candidate.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST && attempt + 1 < kTempNameAttempts) continue;
    if (fd < 0) throw detail::cannot_write(path_, std::strerror(errno));
    file_ = std::make_unique<detail::FdStreamBuf>(fd);
    temp_ = candidate;
    try {
      detail::register_temp(temp_);
    } catch (const Error& e) {
      discard_temp();
      throw detail::cannot_write(path_, e.what());
    }
    if (::fchmod(fd, target.existing_mode.value_or(default_file_mode())) != 0) {
      const int error = errno;
      discard_temp();
      throw detail::cannot_write(path_, std::strerror(error));
    }
  }
  out_.rdbuf(file_.get());
}

AtomicFile::~AtomicFile() { discard_temp(); }

void AtomicFile::refuse_input_target() const {
  if (is_input_file(target_))
    throw detail::cannot_write(path_,
                               "it is an input of this command, which the output would replace; give another path");
}

void AtomicFile::discard_temp() noexcept {
  if (temp_.empty()) return;
  const detail::TerminationSignalsBlocked blocked;
  ::unlink(temp_.c_str());
  detail::unregister_temp(temp_);
  temp_.clear();
}

void AtomicFile::commit() {
  out_.flush();
  if (!file_) {  // standard output
    const bool ok = static_cast<bool>(out_) && std::fflush(stdout) == 0 && !std::ferror(stdout);
    if (!ok) throw detail::cannot_write(path_, errno != 0 ? std::strerror(errno) : "I/O error");
    return;
  }
  int error = file_->close();
  if (error == 0 && !out_) error = EIO;  // a failure the stream saw but no system call reported
  if (error != 0) throw detail::cannot_write(path_, std::strerror(error));  // the destructor removes the temporary
  if (!temp_.empty()) {
    refuse_input_target();                            // (an input read after this file was opened)
    const detail::TerminationSignalsBlocked blocked;  // renamed and unregistered as one step
    if (::rename(temp_.c_str(), target_.c_str()) != 0) throw detail::cannot_write(path_, std::strerror(errno));
    detail::unregister_temp(temp_);
    temp_.clear();
  }
}

void write_file_atomically(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.stream() << text;
  f.commit();
}

}  // namespace ecosim
