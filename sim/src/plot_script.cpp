// Embedded Python scripts run with a helper module beside them; the plot scripts with plot_compare.py
// (plot_script.hpp).
#include "plot_script.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "embedded_texts.hpp"

namespace ecosim::cli {

namespace {
/// argv: the helper module's name, its text, the script's name, its text, then its arguments.
constexpr std::string_view kBootstrap =
    "import sys, types\n"
    "helper = types.ModuleType(sys.argv[1])\n"
    "exec(compile(sys.argv[2], sys.argv[1] + '.py', 'exec'), helper.__dict__)\n"
    "sys.modules[sys.argv[1]] = helper\n"
    "name, script, sys.argv = sys.argv[3], sys.argv[4], [sys.argv[3]] + sys.argv[5:]\n"
    "exec(compile(script, name, 'exec'), {'__name__': '__main__'})\n";
}  // namespace

ProgramRun run_embedded_python(const std::string& python, std::string_view helper_name, std::string_view helper,
                               std::string_view name, std::string_view script, const std::vector<std::string>& args) {
  std::vector<std::string> argv{python,
                                "-c",
                                std::string(kBootstrap),
                                std::string(helper_name),
                                std::string(helper),
                                std::string(name),
                                std::string(script)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv);
}

ProgramRun run_plot_script(std::string_view name, std::string_view script, const std::vector<std::string>& args) {
  return run_embedded_python("/usr/bin/python3", "plot_compare", embedded::plot_compare_py(), name, script, args);
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
