// ReportFolder: check first, create after the work, remove what was written if writing fails.
#include "report_folder.hpp"

#include <unistd.h>

#include <fmt/core.h>
#include <cerrno>
#include <cstring>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::cli {

namespace fs = std::filesystem;

ReportFolder::ReportFolder(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) throw Error("the output directory is empty");
  fs::path p = dir_;
  if (!p.has_filename()) p = p.parent_path();  // "out/" names the folder "out"
  for (;;) {
    std::error_code ec;
    const fs::file_status status = fs::status(p, ec);  // follows symbolic links; a file on the path is not_found
    if (status.type() == fs::file_type::not_found && p.has_relative_path() && p != ".") {
      missing_.insert(missing_.begin(), p);
      p = p.parent_path().empty() ? fs::path(".") : p.parent_path();
      continue;
    }
    if (ec) throw Error(fmt::format("cannot create output directory '{}': {}", dir_, ec.message()));
    if (!fs::is_directory(status))
      throw Error(fmt::format("cannot create output directory '{}': '{}' is not a directory", dir_, p.string()));
    if (::access(p.c_str(), W_OK | X_OK) != 0)
      throw Error(fmt::format("cannot write in '{}': {}", p.string(), std::strerror(errno)));
    return;
  }
}

ReportFolder::~ReportFolder() {
  if (kept_) return;
  std::error_code ignored;  // best effort: the error being reported is the one that matters
  for (auto it = written_.rbegin(); it != written_.rend(); ++it) fs::remove(*it, ignored);
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) fs::remove(*it, ignored);
}

void ReportFolder::create() {
  for (const fs::path& p : missing_) {
    std::error_code ec;
    if (fs::create_directory(p, ec))
      created_.push_back(p);
    else if (ec)
      throw Error(fmt::format("cannot create output directory '{}': {}", dir_, ec.message()));
  }
}

void ReportFolder::write(const std::string& name, const std::function<void(const std::string& path)>& write_to) {
  const std::string path = (fs::path(dir_) / name).string();
  write_to(path);
  written_.push_back(path);
}

}  // namespace ecosim::cli
