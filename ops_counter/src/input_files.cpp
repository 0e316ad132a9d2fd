// remember_input_file / is_input_file: a process-wide set of (device, inode) pairs under a mutex, kept while an
// InputFilesScope is alive.
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

int& scopes() {  // InputFilesScope objects alive
  static int count = 0;
  return count;
}

}  // namespace

InputFilesScope::InputFilesScope() {
  const std::lock_guard lock(inputs_mutex());
  ++scopes();
}

InputFilesScope::~InputFilesScope() {
  const std::lock_guard lock(inputs_mutex());
  if (--scopes() == 0) inputs().clear();
}

void remember_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  const std::lock_guard lock(inputs_mutex());
  if (scopes() > 0) inputs().insert({st.st_dev, st.st_ino});
}

bool is_input_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const std::lock_guard lock(inputs_mutex());
  return inputs().contains({st.st_dev, st.st_ino});
}

}  // namespace ecosim
