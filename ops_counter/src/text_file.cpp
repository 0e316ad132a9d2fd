// open_text_file / read_text_file: opening with a clear error, whole-file read with a size bound.
#include "ecosim/ops_counter/text_file.hpp"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

std::ifstream open_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  return in;
}

std::string read_text_file(const std::string& path, std::uint64_t max_bytes, std::string_view limit_option) {
  std::ifstream in = open_text_file(path);
  std::string text;
  std::array<char, 1 << 16> chunk;
  while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    if (text.size() + n > max_bytes)
      throw Error("cannot read '" + path + "': it holds more than the limit of " + std::to_string(max_bytes) +
                  " bytes" + (limit_option.empty() ? "" : "; raise it with " + std::string(limit_option)));
    text.append(chunk.data(), n);
  }
  if (in.bad()) throw Error("cannot read '" + path + "'");
  return text;
}

}  // namespace ecosim
