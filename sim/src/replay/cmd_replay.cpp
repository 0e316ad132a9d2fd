// `ecosim replay TRACE`: replays a trace on the accelerator model (SystemC or closed-form engine); prints cycles,
// latency and energy by component per operation, and optionally writes a Chrome trace-event timeline (opens in
// Perfetto). A trace with alternatives (traces/README.md) is replayed one alternative at a time and reported
// side by side. A long SystemC replay is announced with a hint to use the closed form, and shows its progress on
// a terminal (replay_progress.hpp).
#include <fmt/core.h>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <iostream>

#include "accel_report.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "ecosim/traces/trace_reader.hpp"
#include "first_records.hpp"
#include "held_output.hpp"
#include "provenance.hpp"
#include "replay_progress.hpp"
#include "work_limits.hpp"
#include "workload.hpp"

namespace ecosim::cli {

int replay(const Args& args) {
  po::options_description options("ecosim replay");
  options.add_options()("help,h", "this help")("trace", po::value<std::string>(),
                                               "trace file, exact convention (also the first argument)")(
      "timeline", po::value<std::string>(), "write a Chrome trace-event JSON timeline (one track per unit)")(
      "format", po::value<std::string>()->default_value("table"), "table, csv or json");
  options.add(accel_options());
  options.add(work_limit_options());
  const Args rest = leading_argument_as(args, "trace");
  po::variables_map vm;
  if (!parse_args(rest, options, vm,
                  "ecosim replay TRACE.jsonl [--accel bitfusion-45nm | --accel-config FILE] [--timeline OUT.json] "
                  "[--engine systemc|closed-form] [--format table|csv|json]"))
    return 0;
  if (!vm.count("trace")) throw Error("give the trace file to replay (ecosim replay TRACE.jsonl)");
  const Format format = parse_format(vm["format"].as<std::string>());
  const accel::AccelConfig config = parse_accel(vm);
  const accel::Engine engine = parse_engine(vm);
  if (engine != accel::Engine::systemc && vm.count("timeline"))
    throw Error("--timeline needs --engine systemc (the closed form times ops, not unit intervals)");
  const TechTable tech = TechTable::builtin_45nm();
  const std::string path = vm["trace"].as<std::string>();
  trace::TraceReader reader(path);  // streamed: one record at a time
  const trace::Header& header = reader.header();
  const WorkLimits limits = parse_work_limits(vm);
  if (!header.alternatives.empty() && vm.count("timeline"))
    throw Error(path + ": --timeline draws one replay; this trace holds alternatives, each replayed on its own");
  std::optional<AtomicFile> timeline_file;  // opened first: an unwritable path fails before the replay
  std::optional<accel::TimelineWriter> timeline;
  if (vm.count("timeline")) {
    timeline_file.emplace(vm["timeline"].as<std::string>());
    timeline.emplace(timeline_file->stream(), config);
  }
  std::function<accel::ReplayWork()> count_work;  // a regular file is read a second time for the total
  if (std::error_code ec; std::filesystem::is_regular_file(path, ec))
    count_work = [&] {
      trace::TraceReader again(path);
      accel::PlanSource counted(again, again.header().convention, path, config, tech, {}, again.header().float_storage);
      return accel::plan_work(counted);
    };
  auto progress = announce_replay(engine, "[" + std::filesystem::path(path).filename().string() + "]", count_work);
  HeldOutput out(std::cout);  // a malformed record late in a small trace leaves no rows printed
  ReplayPrinter printer(out.stream(), format, config, engine, provenance(config, engine, tech),
                        !header.alternatives.empty());
  if (!header.alternatives.empty()) {
    std::vector<AlternativeResult> results;
    for (const trace::Alternative& a : header.alternatives) {
      printer.begin_alternative(a.name);
      FirstRecords records(reader, a.ops);
      accel::PlanSource plans(records, header.convention, path, config, tech, replay_budget(limits, config),
                              header.float_storage);
      results.push_back({a.name, accel::replay(engine, plans, config, &printer)});
    }
    progress.reset();
    OpRecord beyond;
    if (reader.next(beyond)) throw Error(path + ": records beyond the header's alternatives");  // checks the end
    printer.finish(results);
    out.commit();
    return 0;
  }
  accel::PlanSource plans(reader, header.convention, path, config, tech, replay_budget(limits, config),
                          header.float_storage);
  const accel::ReplayResult result =
      accel::replay(engine, plans, config, &printer, timeline ? &*timeline : nullptr, progress->callback());
  progress.reset();  // the line erased before the lines below
  if (timeline) {
    timeline->finish();
    timeline_file->commit();
    fmt::print(stderr, "wrote {} ({} events)\n", vm["timeline"].as<std::string>(), timeline->events());
  }
  printer.finish(result);
  out.commit();
  return 0;
}

}  // namespace ecosim::cli
