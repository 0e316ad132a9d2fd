// FdStreamBuf: buffered write(2) with the first error kept.
#include "fd_streambuf.hpp"

#include <unistd.h>

#include <cerrno>

namespace ecosim::detail {

FdStreamBuf::FdStreamBuf(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }

FdStreamBuf::~FdStreamBuf() {
  if (fd_ >= 0) ::close(fd_);
}

bool FdStreamBuf::drain() {
  for (const char* p = pbase(); p < pptr() && error_ == 0;) {
    const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
    if (n > 0)
      p += n;
    else if (n < 0 && errno != EINTR)
      error_ = errno;
    else if (n == 0)
      error_ = EIO;  // no progress on a non-empty write
  }
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return error_ == 0;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

int FdStreamBuf::sync() { return drain() ? 0 : -1; }

int FdStreamBuf::close() {
  if (fd_ < 0) return error_;
  drain();
  if (::close(fd_) != 0 && error_ == 0) error_ = errno;  // NFS and some devices report write errors here
  fd_ = -1;
  return error_;
}

}  // namespace ecosim::detail
