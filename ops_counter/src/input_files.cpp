// remember_input_file / is_input_file: a process-wide set of (device, inode) pairs under a mutex.
#include "ecosim/ops_counter/input_files.hpp"

#include <sys/stat.h>

#include <mutex>
#include <set>
#include <utility>

namespace ecosim {

namespace {

using FileId = std::pair<dev_t, ino_t>;

std::mutex& inputs_mutex() {
  static std::mutex m;
  return m;
}

std::set<FileId>& inputs() {
  static std::set<FileId> files;
  return files;
}

}  // namespace

void remember_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const std::lock_guard lock(inputs_mutex());
  inputs().insert({st.st_dev, st.st_ino});
}

bool is_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const std::lock_guard lock(inputs_mutex());
  return inputs().contains({st.st_dev, st.st_ino});
}

}  // namespace ecosim
