// Output path classification: follow symbolic links, then look at the file type.
#include "output_target.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ecosim::detail {

namespace {

constexpr int kMaxSymlinkHops = 40;  // Linux's own limit (MAXSYMLINKS)

/// The path a chain of symbolic links ends at (that path itself may not exist: a dangling link).
std::string follow_symlinks(const std::string& path) {
  std::filesystem::path current = path;
  for (int hop = 0; hop < kMaxSymlinkHops; ++hop) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current.string();
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(current, ec);
    if (ec) throw cannot_write(path, ec.message());
    current = target.is_absolute() ? target : current.parent_path() / target;
  }
  throw cannot_write(path, std::strerror(ELOOP));
}

}  // namespace

Error cannot_write(const std::string& path, const std::string& why) {
  return Error("cannot write '" + path + "': " + why);
}

OutputTarget resolve_output(const std::string& path) {
  if (path == "-") return {OutputKind::standard_output, path, std::nullopt};
  OutputTarget target{OutputKind::replace, follow_symlinks(path), std::nullopt};
  struct stat st {};
  if (::stat(target.path.c_str(), &st) != 0) {
    if (errno == ENOENT) return target;  // a new file (its folder is checked when the temporary is created)
    throw cannot_write(path, std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) {
    target.existing_mode = st.st_mode & 0777;  // never set-id or sticky bits on a file we wrote
  } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) {
    target.kind = OutputKind::write_through;
  } else if (S_ISDIR(st.st_mode)) {
    throw cannot_write(path, std::strerror(EISDIR));
  } else {
    throw cannot_write(path, "not a regular file, device or FIFO");
  }
  return target;
}

}  // namespace ecosim::detail
