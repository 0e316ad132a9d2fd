// HeldOutput: text held in a string up to the bound, then written through.
#include "held_output.hpp"

namespace ecosim::cli {

HeldOutput::HeldOutput(std::ostream& target, std::size_t max_held_bytes)
    : target_(target), max_held_bytes_(max_held_bytes), stream_(this) {}

std::streamsize HeldOutput::xsputn(const char* s, std::streamsize n) {
  if (!passing_ && held_.size() + std::size_t(n) > max_held_bytes_) {
    target_.write(held_.data(), std::streamsize(held_.size()));
    held_ = std::string();  // the memory is given back
    passing_ = true;
  }
  if (passing_)
    target_.write(s, n);
  else
    held_.append(s, std::size_t(n));
  return target_ ? n : 0;
}

int HeldOutput::overflow(int c) {
  if (c == traits_type::eof()) return traits_type::not_eof(c);
  const char ch = traits_type::to_char_type(c);
  return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
}

void HeldOutput::commit() {
  target_.write(held_.data(), std::streamsize(held_.size()));
  held_.clear();
  target_.flush();
}

}  // namespace ecosim::cli
