// `ecosim count`: op counts and energy of a zoo model, an ONNX model, one attention layer, or a trace file.
#include <iostream>
#include <sstream>

#include "count_report.hpp"
#include "ecosim/ops_counter/op_counter.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/trace_reader.hpp"
#include "held_output.hpp"
#include "provenance.hpp"
#include "variant_parameters.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

/// One row per record: the parts of a single attention layer.
struct RecordRows : OpSink {
  CountPrinter& printer;
  explicit RecordRows(CountPrinter& p) : printer(p) {}
  void record(const OpRecord& op) override { printer.row(op.name, op.counts); }
};

/// Rows per layer of a model, or per record of a single attention layer.
void count_workload(const Workload& w, CountPrinter& printer) {
  for (const Layer& layer : w.layers()) {
    if (w.single_layer()) {
      RecordRows rows(printer);
      emit(layer, w.convention, rows);
      continue;
    }
    OpCounter counter;
    emit(layer, w.convention, counter);
    printer.row(layer.name, counter.total());
  }
}

/// "uncompressed, compressed": the names of a trace's alternatives.
std::string alternative_names(const trace::Header& header) {
  std::string names;
  for (const trace::Alternative& a : header.alternatives) names += (names.empty() ? "" : ", ") + a.name;
  return names;
}

/// The trace's workload as its header states it, with the convention and the file.
nlohmann::json trace_workload(const trace::TraceReader& reader, const std::string& path) {
  nlohmann::json workload = reader.header().workload;
  workload["convention"] = name(reader.header().convention);
  workload["trace"] = path;
  return workload;
}

}  // namespace

int count(const Args& args) {
  po::options_description options("ecosim count");
  options.add_options()("help,h", "this help")("trace", po::value<std::string>(),
                                               "count the records of a trace file instead of a workload")(
      "per-layer", "one row per layer (per record for --trace)")(
      "format", po::value<std::string>()->default_value("table"), "table, csv or json")(
      "tech-table", po::value<std::string>(), "energy per op, JSON (default: built-in 45 nm table)");
  const po::options_description workload_group = workload_options(Convention::paper);
  options.add(workload_group);
  po::variables_map vm;
  if (!parse_args(args, options, vm,
                  "ecosim count (--model NAME | --hf-config FILE | --onnx FILE | --layer attention --seq N ... | "
                  "--trace FILE) [options]",
                  variant_list_help()))
    return 0;
  const Format format = parse_format(vm["format"].as<std::string>());
  const TechTable tech =
      vm.count("tech-table") ? TechTable::load(vm["tech-table"].as<std::string>()) : TechTable::builtin_45nm();
  const bool per_layer = vm.count("per-layer") > 0;
  if (vm.count("trace")) {                               // streamed: one record at a time, whatever the trace's length
    for (const auto& option : workload_group.options())  // the trace's records are its workload, as written
      if (const std::string& key = option->long_name(); vm.count(key) && !vm[key].defaulted())
        throw Error("--" + key + " does not apply to --trace: a trace is counted as it was written (its workload, " +
                    "convention and scope are in its header); write another with `ecosim trace`");
    const std::string path = vm["trace"].as<std::string>();
    trace::TraceReader reader(path);
    if (!reader.header().alternatives.empty())
      throw Error(path + ": the trace holds alternatives (" + alternative_names(reader.header()) +
                  "), ways of doing the same work that are not summed; `ecosim replay " + path +
                  "` reports them side by side");
    HeldOutput out(std::cout);  // a malformed record late in a small trace leaves no rows printed
    CountPrinter printer(out.stream(), trace_workload(reader, path), tech, format, per_layer, provenance(tech));
    OpRecord op;
    while (reader.next(op)) printer.row(op.name, op.counts);
    printer.finish();
    out.commit();
    return 0;
  }
  const Workload workload = parse_workload(vm);
  std::ostringstream text;  // a workload has few rows: printed once all are counted, so an error prints none
  CountPrinter printer(text, workload.describe(), tech, format, per_layer, provenance(tech));
  if (const std::optional<DecoderFacts> facts = workload.decoder_facts()) {
    nlohmann::json j = facts->to_json();
    // the whole model's parameters, weights read and MACs a token, whatever --scope the counts above take
    if (workload.attention_scope) j["decoder_figures_scope"] = "model";
    printer.set_decoder_facts(std::move(j));
  }
  count_workload(workload, printer);
  printer.finish();
  std::cout << text.str();
  return 0;
}

}  // namespace ecosim::cli
