// Internal: a command's standard output held back until the command has succeeded, while it is small: a report
// of a trace whose last record turns out malformed then prints nothing. Past a bound the held text is written
// and the rest passes straight through, so a report of a huge trace still streams in bounded memory.
#pragma once
#include <cstddef>
#include <ostream>
#include <streambuf>
#include <string>

namespace ecosim::cli {

class HeldOutput : private std::streambuf {
 public:
  /// Reports up to this size are held whole (a few thousand rows).
  static constexpr std::size_t kMaxHeldBytes = std::size_t(1) << 20;

  explicit HeldOutput(std::ostream& target, std::size_t max_held_bytes = kMaxHeldBytes);
  HeldOutput(const HeldOutput&) = delete;
  HeldOutput& operator=(const HeldOutput&) = delete;

  /// The stream to print the report to.
  std::ostream& stream() { return stream_; }
  /// The command succeeded: writes what is held. Without it (an error) the held text is dropped.
  void commit();

 private:
  int overflow(int c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

  std::ostream& target_;
  std::size_t max_held_bytes_;
  std::string held_;
  bool passing_ = false;  // the bound was passed: everything goes straight to the target
  std::ostream stream_;
};

}  // namespace ecosim::cli
