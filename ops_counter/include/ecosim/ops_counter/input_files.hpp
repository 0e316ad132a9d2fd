// The input files a command has read (an ONNX model, a trace, an .npy array, a sweep spec): an output about to
// replace one of them is refused (traces' AtomicFile), so an output path that names an input never destroys it.
#pragma once
#include <string>

namespace ecosim {

/// One command's run (the command line's, or a Python call's): the inputs are remembered while one is alive and
/// forgotten when the outermost ends — outside one (a library's own use) nothing is remembered, so a program may
/// read a file and write it again later.
class InputFilesScope {
 public:
  InputFilesScope();
  ~InputFilesScope();
  InputFilesScope(const InputFilesScope&) = delete;
  InputFilesScope& operator=(const InputFilesScope&) = delete;
};

/// Remembers `path` (its device and inode, after links) as an input of the command running; a path that is not a
/// regular file (a FIFO, a device, a missing file), or one read outside an InputFilesScope, is not remembered.
void remember_input_file(const std::string& path);
/// Whether `path` is a regular file remembered as an input (the same file under any name).
bool is_input_file(const std::string& path);

}  // namespace ecosim
