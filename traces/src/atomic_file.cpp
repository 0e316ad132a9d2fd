// AtomicFile: temporary file + rename.
#include "ecosim/traces/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("empty output path");
  temp_ = path_ + ".tmp." + std::to_string(::getpid());
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error("cannot write '" + path_ + "': " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::remove(temp_.c_str());
  }
}

void AtomicFile::commit() {
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) throw Error("cannot write '" + path_ + "' (disk full or I/O error)");
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) throw Error("cannot write '" + path_ + "': " + ec.message());
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.stream() << text;
  f.commit();
}

}  // namespace ecosim
