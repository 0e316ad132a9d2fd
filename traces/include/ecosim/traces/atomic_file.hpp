// AtomicFile: an output file that appears whole or not at all. A regular file or a new path is written to a
// temporary beside it (unpredictable name, created exclusively) and renamed into place on commit(); "-" is
// standard output; a device or FIFO is written through; symbolic links are followed to their final target.
// Without commit(), and on SIGINT or SIGTERM, the temporary is removed. Rules: traces/README.md, "Output files".
#pragma once
#include <memory>
#include <ostream>
#include <string>

namespace ecosim {

namespace detail {
class FdStreamBuf;
}

class AtomicFile {
 public:
  /// Opens the output (the temporary, or the device); throws ecosim::Error for a missing or unwritable folder,
  /// a directory, a socket or a symbolic-link loop, so a bad path fails before any work.
  explicit AtomicFile(std::string path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ostream& stream() { return out_; }
  /// Flushes, checks every write succeeded, and renames into place; throws ecosim::Error on failure.
  void commit();

 private:
  void discard_temp() noexcept;
  /// Throws when the file it would replace is an input of this process (ecosim/ops_counter/input_files.hpp).
  void refuse_input_target() const;

  std::string path_;    // as given (for messages)
  std::string target_;  // after following symbolic links: what commit() replaces
  std::string temp_;    // absolute path of the temporary; empty when writing through or once renamed
  std::unique_ptr<detail::FdStreamBuf> file_;  // the temporary or the device; null for standard output
  std::ostream out_;
};

/// Writes `text` to `path` atomically.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace ecosim
