// Reads a whole text file, turning every failure into an ecosim::Error that names the path.
#pragma once
#include <string>

namespace ecosim {

std::string read_text_file(const std::string& path);

}  // namespace ecosim
