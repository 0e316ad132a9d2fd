// AtomicFile: writes to a temporary file beside the target and renames it into place on commit(), so a
// failed or interrupted run never leaves a half-written output; without commit() the temporary is removed.
#pragma once
#include <fstream>
#include <string>

namespace ecosim {

class AtomicFile {
 public:
  /// Opens a temporary beside `path`; throws ecosim::Error when the folder is missing or not writable.
  explicit AtomicFile(std::string path);
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ostream& stream() { return out_; }
  /// Flushes, checks every write succeeded, and renames into place; throws ecosim::Error on failure.
  void commit();

 private:
  std::string path_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

/// Writes `text` to `path` atomically.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace ecosim
