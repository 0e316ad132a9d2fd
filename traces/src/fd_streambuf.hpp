// FdStreamBuf: an output stream buffer over a POSIX file descriptor it owns. It keeps the errno of the first
// failed write or close, which std::ostream alone would reduce to a bad bit, so callers can say why.
#pragma once
#include <array>
#include <streambuf>

namespace ecosim::detail {

class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd);
  FdStreamBuf(const FdStreamBuf&) = delete;
  FdStreamBuf& operator=(const FdStreamBuf&) = delete;
  ~FdStreamBuf() override;  // closes the descriptor without writing what is still buffered

  /// Writes what is buffered and closes the descriptor; returns 0, or the errno of the first failure.
  int close();

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool drain();  // writes the buffer out (retrying short writes and EINTR); false once a write has failed

  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_;
};

}  // namespace ecosim::detail
