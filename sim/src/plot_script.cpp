// Embedded Python scripts run with helper modules beside them: files.py, and the plot scripts' plot_compare.py
// (plot_script.hpp).
#include "plot_script.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "embedded_texts.hpp"

namespace ecosim::cli {

namespace {
/// argv: the number of helper modules, each module's name and text, the script's name, its text, then its arguments.
constexpr std::string_view kBootstrap =
    "import sys, types\n"
    "count, rest = int(sys.argv[1]), sys.argv[2:]\n"
    "for i in range(count):\n"
    "    module = types.ModuleType(rest[2 * i])\n"
    "    sys.modules[rest[2 * i]] = module\n"
    "    exec(compile(rest[2 * i + 1], rest[2 * i] + '.py', 'exec'), module.__dict__)\n"
    "name, script, sys.argv = rest[2 * count], rest[2 * count + 1], [rest[2 * count]] + rest[2 * count + 2:]\n"
    "exec(compile(script, name, 'exec'), {'__name__': '__main__'})\n";
}  // namespace

ProgramRun run_embedded_python(const std::string& python, const std::vector<PythonModule>& helpers,
                               std::string_view name, std::string_view script, const std::vector<std::string>& args) {
  std::vector<std::string> argv{python,
                                "-c",
                                std::string(kBootstrap),
                                std::to_string(helpers.size() + 1),
                                "files",
                                std::string(embedded::files_py())};  // (files first: a helper may import it)
  for (const PythonModule& m : helpers) argv.insert(argv.end(), {std::string(m.name), std::string(m.text)});
  argv.insert(argv.end(), {std::string(name), std::string(script)});
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv);
}

ProgramRun run_plot_script(std::string_view name, std::string_view script, const std::vector<std::string>& args) {
  return run_embedded_python("/usr/bin/python3", {{"plot_compare", embedded::plot_compare_py()}}, name, script, args);
}

void draw_plot(std::string_view name, std::string_view script, const std::vector<std::string>& args,
               const std::string& png, const std::string& written) {
  const ProgramRun run = run_plot_script(name, script, args);
  std::error_code ec;
  if (run.succeeded && std::filesystem::is_regular_file(png, ec))
    fmt::print(stderr, "wrote {} and {}\n", written, png);
  else
    fmt::print(stderr, "warning: no plot written ({}; is python3-matplotlib installed?); {} are complete\n",
               run.succeeded ? png + " is missing" : run.failure, written);
}

}  // namespace ecosim::cli
