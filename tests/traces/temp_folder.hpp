// TempFolder: an empty folder of this test process's own (removed with everything in it at scope end), and
// the names and contents it holds, so tests can see every file a writer leaves behind, temporaries included.
#pragma once
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../unique_temp_path.hpp"

class TempFolder {
 public:
  explicit TempFolder(const std::string& stem) : path_(unique_temp_path(stem, ".d")) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directory(path_);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }

  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

  /// The contents of a file in the folder.
  std::string read(const std::string& name) const {
    std::ifstream in(path_ / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  /// Names in the folder, sorted (hidden ones included).
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};
