// Opening and reading text files, turning every failure into an ecosim::Error that names the path.
#pragma once
#include <cstdint>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>

namespace ecosim {

/// Opens `path` for reading (a regular file, FIFO or device; not a folder); throws ecosim::Error.
std::ifstream open_text_file(const std::string& path);
/// The whole file (for small inputs: configs, tables; traces are streamed by trace::TraceReader); a file
/// holding more than `max_bytes` is an error naming the limit and `limit_option`, the option raising it, when
/// given (it is never read past the limit, so /dev/zero or a huge file fails fast).
std::string read_text_file(const std::string& path, std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max(),
                           std::string_view limit_option = {});

}  // namespace ecosim
