// The input files a command has read (an ONNX model, a trace, an .npy array, a sweep spec): an output about to
// replace one of them is refused (traces' AtomicFile), so an output path that names an input never destroys it.
#pragma once
#include <string>

namespace ecosim {

/// Remembers `path` (its device and inode, after links) as an input of this process; a path that is not a
/// regular file (a FIFO, a device, a missing file) is not remembered.
void remember_input_file(const std::string& path);
/// Whether `path` is a regular file remembered as an input (the same file under any name).
bool is_input_file(const std::string& path);

}  // namespace ecosim
