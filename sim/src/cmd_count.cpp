// `ecosim count`: op counts and energy of a zoo model, one attention layer, or a trace file.
#include <fmt/core.h>

#include "count_report.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/trace.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

/// One row per record: the parts of a single attention layer.
struct RecordRows : OpSink {
  std::vector<CountRow>& rows;
  explicit RecordRows(std::vector<CountRow>& r) : rows(r) {}
  void record(const OpRecord& op) override { rows.push_back({op.name, op.counts}); }
};

/// Rows per layer of a model, or per record of a single attention layer.
CountReport count_workload(const Workload& w) {
  CountReport report{w.describe(), {}};
  for (const Layer& layer : w.layers()) {
    if (w.model.empty()) {
      RecordRows rows(report.rows);
      emit(layer, w.convention, rows);
      continue;
    }
    OpCounter counter;
    emit(layer, w.convention, counter);
    report.rows.push_back({layer.name, counter.total()});
  }
  return report;
}

CountReport count_trace(const std::string& path) {
  const trace::Trace t = trace::read_file(path);
  CountReport report{t.header.workload, {}};
  report.workload["convention"] = name(t.header.convention);
  report.workload["trace"] = path;
  for (const auto& op : t.ops) report.rows.push_back({op.name, op.counts});
  return report;
}

}  // namespace

int count(const Args& args) {
  po::options_description options("ecosim count");
  options.add_options()("help,h", "this help")
      ("trace", po::value<std::string>(), "count the records of a trace file instead of a workload")
      ("per-layer", "one row per layer (per record for --trace)")
      ("format", po::value<std::string>()->default_value("table"), "table, csv or json")
      ("tech-table", po::value<std::string>(), "energy per op, JSON (default: built-in 45 nm table)");
  options.add(workload_options());
  po::variables_map vm;
  if (!parse_args(args, options, vm,
                  "ecosim count (--model NAME | --layer attention --seq N ... | --trace FILE) [options]"))
    return 0;
  const Format format = parse_format(vm["format"].as<std::string>());
  const TechTable tech = vm.count("tech-table") ? TechTable::load(vm["tech-table"].as<std::string>())
                                                : TechTable::builtin_45nm();
  const CountReport report =
      vm.count("trace") ? count_trace(vm["trace"].as<std::string>()) : count_workload(parse_workload(vm));
  fmt::print("{}", render(report, tech, format, vm.count("per-layer") > 0));
  return 0;
}

}  // namespace ecosim::cli
