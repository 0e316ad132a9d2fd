// TraceRecords: a trace file read by the command line's own streaming reader (ecosim::trace::TraceReader), so a
// trace reaches Python validated record by record as `count --trace` and `replay` validate it (a version-1 file
// converted, lines over 1 MiB and JSON nested deeper than 64 levels refused), in constant memory; each record
// is handed over as its JSON text.
#include <optional>
#include <string>

#include "bindings.hpp"
#include "ecosim/traces/trace.hpp"
#include "ecosim/traces/trace_reader.hpp"

namespace ecosim::python {

namespace {

class TraceRecords {
 public:
  explicit TraceRecords(const std::string& path) : reader_(path) {}
  std::string header() const { return trace::to_json(reader_.header()).dump(); }
  /// The next op record's JSON text; none after the end record (its count checked).
  std::optional<std::string> next() {
    OpRecord r;
    if (!reader_.next(r)) return std::nullopt;
    return trace::to_json(r).dump();
  }

 private:
  trace::TraceReader reader_;
};

}  // namespace

void bind_traces(pybind11::module_& m) {
  pybind11::class_<TraceRecords>(m, "TraceRecords",
                                 "A trace file's op records, read and validated one at a time; iterate for their "
                                 "JSON texts. Raises ecosim.Error '<file>:<line>: ...' on the first bad line.")
      .def(pybind11::init<const std::string&>(), pybind11::arg("path"))
      .def_property_readonly("header", &TraceRecords::header, "the header record's JSON text")
      .def("__iter__", [](TraceRecords& t) -> TraceRecords& { return t; })
      .def("__next__", [](TraceRecords& t) {
        std::optional<std::string> text = t.next();
        if (!text) throw pybind11::stop_iteration();
        return *text;
      });
}

}  // namespace ecosim::python
