// A path in the system temporary folder that no other test process uses: CTest runs test cases in parallel,
// and two test runs may share a machine.
#pragma once
#include <unistd.h>
#include <filesystem>
#include <string>

inline std::filesystem::path unique_temp_path(const std::string& stem, const std::string& extension) {
  return std::filesystem::temp_directory_path() / (stem + "." + std::to_string(::getpid()) + extension);
}
