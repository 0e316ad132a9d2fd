// Where an output path leads, decided before anything is written: standard output ("-"), a file replaced
// atomically (a regular file or a new path), or a device or FIFO written through. Symbolic links are followed
// to their final target, which the same rules then apply to; anything else is refused.
#pragma once
#include <sys/types.h>

#include <optional>
#include <string>

#include "ecosim/ops_counter/error.hpp"

namespace ecosim::detail {

enum class OutputKind { standard_output, replace, write_through };

struct OutputTarget {
  OutputKind kind = OutputKind::replace;
  std::string path;                     // the final target, after following symbolic links
  std::optional<mode_t> existing_mode;  // permission bits of the regular file being replaced
};

/// The error every output failure reads as: "cannot write '<path>': <why>".
Error cannot_write(const std::string& path, const std::string& why);

/// Classifies `path`; throws ecosim::Error ("cannot write '<path>': ...") for a directory, a socket, a
/// symbolic-link loop or a path that cannot be examined.
OutputTarget resolve_output(const std::string& path);

}  // namespace ecosim::detail
