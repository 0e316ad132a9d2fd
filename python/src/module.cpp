// The extension module ecosim._ecosim: ecosim::Error as the Python exception ecosim.Error, and the bindings
// (python/README.md). The package ecosim (python/ecosim/) wraps it in functions returning plain Python data.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "ecosim/ops_counter/error.hpp"

PYBIND11_MODULE(_ecosim, m) {
  m.doc() = "ecosim's libraries from Python (the package ecosim wraps this module)";
  pybind11::register_exception<ecosim::Error>(m, "Error");
  ecosim::python::bind_commands(m);
  ecosim::python::bind_compression(m);
  ecosim::python::bind_traces(m);
}
