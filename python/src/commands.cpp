// run_command: an ecosim command (count, trace, replay, compare, train, ...) run in this process through the
// command line's own entry, with what it prints on std::cout captured and returned; its errors reach Python
// as ecosim.Error carrying the command line's message; and whether this build imports ONNX.
#include <boost/program_options/errors.hpp>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/onnx_model.hpp"
#include "ecosim/sim/commands.hpp"

namespace ecosim::python {

namespace {

/// std::cout sent into a string while alive (the commands print their reports on std::cout).
class CapturedCout {
 public:
  CapturedCout() : previous_(std::cout.rdbuf(text_.rdbuf())) {}
  ~CapturedCout() { std::cout.rdbuf(previous_); }
  CapturedCout(const CapturedCout&) = delete;
  CapturedCout& operator=(const CapturedCout&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* previous_;
};

std::string run_command(const cli::Args& args) {
  static std::mutex one_at_a_time;  // std::cout and the recorded command line are process-wide
  const std::lock_guard lock(one_at_a_time);
  CapturedCout out;
  int status = 0;
  try {
    status = cli::run_command(args);
  } catch (const boost::program_options::error& e) {
    throw Error(std::string(e.what()) + " (see ecosim " + args.front() + " --help)");
  }
  if (status != 0) throw Error("ecosim " + args.front() + " exited with status " + std::to_string(status));
  return out.text();
}

}  // namespace

void bind_commands(pybind11::module_& m) {
  m.def(
      "run_command",
      [](const cli::Args& args) {
        const pybind11::gil_scoped_release unlocked;  // a compare may run for minutes
        return run_command(args);
      },
      pybind11::arg("args"),
      "Runs `ecosim ARGS...` in this process and returns what it printed; raises ecosim.Error with the "
      "command's message when it fails.");
  m.def("onnx_supported", &onnx_supported, "True when ecosim was built with ONNX import (count --onnx works).");
}

}  // namespace ecosim::python
