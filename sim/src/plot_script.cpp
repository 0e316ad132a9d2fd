// The embedded plot scripts run with plot_compare.py as a module (plot_script.hpp).
#include "plot_script.hpp"

#include <fmt/core.h>

#include <filesystem>

#include "embedded_texts.hpp"

namespace ecosim::cli {

namespace {
/// argv: plot_compare.py's text, the script's name, its text, then its arguments.
constexpr std::string_view kBootstrap =
    "import sys, types\n"
    "helper = types.ModuleType('plot_compare')\n"
    "exec(compile(sys.argv[1], 'plot_compare.py', 'exec'), helper.__dict__)\n"
    "sys.modules['plot_compare'] = helper\n"
    "name, script, sys.argv = sys.argv[2], sys.argv[3], [sys.argv[2]] + sys.argv[4:]\n"
    "exec(compile(script, name, 'exec'), {'__name__': '__main__'})\n";
}  // namespace

ProgramRun run_plot_script(std::string_view name, std::string_view script, const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/python3",          "-c", std::string(kBootstrap),
                                std::string(embedded::plot_compare_py()), std::string(name), std::string(script)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_program(argv);
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
