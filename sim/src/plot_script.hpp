// Internal: runs an embedded Python script (compiled in: an installed ecosim needs no source tree) with helper
// modules beside it — python/ecosim/files.py as the module `files` (atomic writes as the commands write), and the
// plot scripts (scripts/plot_*.py) with Debian's interpreter, /usr/bin/python3 (the python3 first on PATH may lack
// Debian's matplotlib), and scripts/plot_compare.py, which they import for matplotlib's set-up and their PNG
// writes, as the module `plot_compare`. The scripts and paths are plain arguments, never a shell's.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "child_process.hpp"

namespace ecosim::cli {

/// A module handed to an embedded script: its name and text.
struct PythonModule {
  std::string_view name, text;
};

/// Runs `script` as `name` (its sys.argv[0], and its file name in a traceback) with `args` as sys.argv[1:], by the
/// interpreter at `python` (an absolute path), with python/ecosim/files.py importable as the module `files` and
/// each of `helpers` as the module it names.
ProgramRun run_embedded_python(const std::string& python, const std::vector<PythonModule>& helpers,
                               std::string_view name, std::string_view script, const std::vector<std::string>& args);

/// run_embedded_python by /usr/bin/python3 with scripts/plot_compare.py as the module plot_compare.
ProgramRun run_plot_script(std::string_view name, std::string_view script, const std::vector<std::string>& args);

/// run_plot_script writing `png`, then one line on stderr: "wrote <written> and <png>", or a warning that no plot
/// was written (matplotlib missing?) while <written>, the reports beside it, are complete.
void draw_plot(std::string_view name, std::string_view script, const std::vector<std::string>& args,
               const std::string& png, const std::string& written);

}  // namespace ecosim::cli
