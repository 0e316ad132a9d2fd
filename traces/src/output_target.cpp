// Output path classification: follow symbolic links, then look at the file type.
#include "output_target.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>

namespace ecosim::detail {

namespace {

constexpr int kMaxSymlinkHops = 40;  // Linux's own limit (MAXSYMLINKS)

/// A link of /proc/<pid>/fd (also reached as /dev/fd, /dev/stdout, /dev/stderr): what a shell redirected a
/// descriptor to. Renaming a file over its target would replace a file opened for appending (`>> log`) and lose
/// what the shell wrote there.
struct DescriptorLink {
  std::string path;  // the link itself: opening it opens what the descriptor holds
  int fd = 0;
  bool own = false;  // of this process
};

/// The descriptor link `link` is; none for another path.
std::optional<DescriptorLink> descriptor_link(const std::filesystem::path& link) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::canonical(link.parent_path(), ec);
  if (ec || folder.filename() != "fd" || folder.parent_path().parent_path() != "/proc") return std::nullopt;
  const std::string name = link.filename().string();
  if (name.empty() || name.size() > 9 || name.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return DescriptorLink{link.string(), std::stoi(name), folder.parent_path().filename() == std::to_string(::getpid())};
}

/// The path a chain of symbolic links ends at (that path itself may not exist: a dangling link), or the descriptor
/// the chain reaches (descriptor_link).
std::variant<std::string, DescriptorLink> follow_symlinks(const std::string& path) {
  std::filesystem::path current = path;
  for (int hop = 0; hop < kMaxSymlinkHops; ++hop) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current.string();
    if (auto link = descriptor_link(current)) return *std::move(link);
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
  const auto followed = follow_symlinks(path);
  if (const DescriptorLink* link = std::get_if<DescriptorLink>(&followed)) {
    if (link->own && link->fd == STDOUT_FILENO) return {OutputKind::standard_output, "-", std::nullopt};
    struct stat st {};
    if (::stat(link->path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)))
      return {OutputKind::write_through, link->path, std::nullopt};  // a terminal, a pipe, a device
    throw cannot_write(path, "it is descriptor " + std::to_string(link->fd) + " of " +
                                 (link->own ? "this" : "another") +
                                 " process, a file or socket a shell opened (renaming a file over it would replace "
                                 "what the shell wrote there); give the file's own path, or - for the standard "
                                 "output");
  }
  OutputTarget target{OutputKind::replace, std::get<std::string>(followed), std::nullopt};
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
