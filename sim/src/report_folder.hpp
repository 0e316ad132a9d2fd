// ReportFolder: the output folder of `ecosim compare`, which appears complete or not at all. The constructor
// checks, before any work, that the folder is a writable directory or can be created (its nearest existing
// ancestor is a writable directory); create() makes it once the work has succeeded; write() records every
// file written, and unless keep() is called the destructor removes those files and the folders it created.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ecosim::cli {

class ReportFolder {
 public:
  /// Throws ecosim::Error when `dir` cannot be created or written (a file on its path, no permission).
  explicit ReportFolder(std::string dir);
  ~ReportFolder();

  /// Creates the missing folders.
  void create();
  /// Calls write_to with the path of `name` in the folder, then remembers that file for removal on failure.
  void write(const std::string& name, const std::function<void(const std::string& path)>& write_to);
  /// Everything is written: the destructor leaves it in place.
  void keep() { kept_ = true; }

 private:
  std::string dir_;
  std::vector<std::filesystem::path> missing_;  // folders to create, outermost first
  std::vector<std::filesystem::path> created_;  // folders create() made
  std::vector<std::string> written_;
  bool kept_ = false;

 public:
  ReportFolder(const ReportFolder&) = delete;  // one owner of the files it may remove
  ReportFolder& operator=(const ReportFolder&) = delete;
};

}  // namespace ecosim::cli
