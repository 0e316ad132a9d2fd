// Internal: runs an embedded plot script (scripts/plot_*.py, compiled in: an installed ecosim needs no source tree)
// with Debian's interpreter, /usr/bin/python3 (the python3 first on PATH may lack Debian's matplotlib), giving it
// scripts/plot_compare.py, which the other scripts import for matplotlib's set-up and their atomic PNG writes, as the
// module `plot_compare`. The scripts and paths are plain arguments, never a shell's.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "child_process.hpp"

namespace ecosim::cli {

/// Runs `script` as `name` (its sys.argv[0], and its file name in a traceback) with `args` as sys.argv[1:].
ProgramRun run_plot_script(std::string_view name, std::string_view script, const std::vector<std::string>& args);

/// run_plot_script writing `png`, then one line on stderr: "wrote <written> and <png>", or a warning that no plot
/// was written (matplotlib missing?) while <written>, the reports beside it, are complete.
void draw_plot(std::string_view name, std::string_view script, const std::vector<std::string>& args,
               const std::string& png, const std::string& written);

}  // namespace ecosim::cli
