// `ecosim replay TRACE`: replays a trace on the SystemC accelerator model; prints cycles, latency and energy
// by component per operation, and optionally writes a Chrome trace-event timeline (opens in Perfetto).
#include <fmt/core.h>

#include "accel_report.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "ecosim/traces/trace.hpp"
#include "workload.hpp"

namespace ecosim::cli {

int replay(const Args& args) {
  po::options_description options("ecosim replay");
  options.add_options()("help,h", "this help")("trace", po::value<std::string>(), "trace file (also the first argument)")
      ("timeline", po::value<std::string>(), "write a Chrome trace-event JSON timeline (one track per unit)")
      ("format", po::value<std::string>()->default_value("table"), "table, csv or json");
  options.add(accel_options());
  Args rest = args;
  if (!rest.empty() && !rest[0].empty() && rest[0][0] != '-') rest.insert(rest.begin(), "--trace");
  po::variables_map vm;
  if (!parse_args(rest, options, vm,
                  "ecosim replay TRACE.jsonl [--accel bitfusion-45nm | --accel-config FILE] [--timeline OUT.json] "
                  "[--format table|csv|json]"))
    return 0;
  if (!vm.count("trace")) throw Error("give the trace file to replay (ecosim replay TRACE.jsonl)");
  const Format format = parse_format(vm["format"].as<std::string>());
  const accel::AccelConfig config = parse_accel(vm);
  const trace::Trace t = trace::read_file(vm["trace"].as<std::string>());
  const auto plans = accel::plan_ops(t.ops, config, TechTable::builtin_45nm());
  std::vector<accel::TimelineEvent> timeline;
  const bool want_timeline = vm.count("timeline") > 0;
  std::optional<AtomicFile> timeline_file;  // opened first: an unwritable path fails before the replay
  if (want_timeline) timeline_file.emplace(vm["timeline"].as<std::string>());
  const accel::ReplayResult result = accel::replay_systemc(plans, config, want_timeline ? &timeline : nullptr);
  if (timeline_file) {
    timeline_file->stream() << accel::timeline_json(timeline, config);
    timeline_file->commit();
    fmt::print(stderr, "wrote {} ({} events)\n", vm["timeline"].as<std::string>(), timeline.size());
  }
  fmt::print("{}", render(result, format));
  return 0;
}

}  // namespace ecosim::cli
