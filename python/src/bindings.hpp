// The parts of the extension module ecosim._ecosim, each binding one face of the libraries.
#pragma once
#include <pybind11/pybind11.h>

namespace ecosim::python {

/// run_command(args): an ecosim command run in-process, its standard output returned as text; onnx_supported().
void bind_commands(pybind11::module_& m);
/// The activation-compression kernels (ActNN, GACT, Mesa, Few-Bit) on numpy arrays.
void bind_compression(pybind11::module_& m);
/// TraceRecords(path): a trace file's records through the command line's streaming, validating reader.
void bind_traces(pybind11::module_& m);

}  // namespace ecosim::python
