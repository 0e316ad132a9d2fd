// Opening and reading text files, turning every failure into an ecosim::Error that names the path.
#pragma once
#include <fstream>
#include <string>

namespace ecosim {

/// Opens `path` for reading (a regular file, FIFO or device; not a folder); throws ecosim::Error.
std::ifstream open_text_file(const std::string& path);
/// The whole file (for small inputs: configs, tables; traces are streamed by trace::TraceReader).
std::string read_text_file(const std::string& path);

}  // namespace ecosim
