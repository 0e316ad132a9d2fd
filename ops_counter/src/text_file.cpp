// open_text_file / read_text_file: opening with a clear error, whole-file read.
#include "ecosim/ops_counter/text_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

std::ifstream open_text_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error("cannot read '" + path + "': it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot open '" + path + "': " + std::strerror(errno));
  return in;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in = open_text_file(path);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error("cannot read '" + path + "'");
  return text.str();
}

}  // namespace ecosim
