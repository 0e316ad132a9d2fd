// Reads a whole text file, turning every failure into an ecosim::Error that names the path.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

namespace ecosim {

/// The file's bytes; a file holding more than `max_bytes` is an error naming the limit (it is never read
/// past the limit, so /dev/zero or a huge file fails fast).
std::string read_text_file(const std::string& path,
                           std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max());

}  // namespace ecosim
