// `ecosim trace`: writes the analytic op trace (format v2, traces/README.md) of a zoo model or an attention layer,
// counted in the exact convention unless --convention paper asks for the papers' counts (which replay refuses).
#include <fmt/core.h>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/trace_writer.hpp"
#include "variant_parameters.hpp"
#include "workload.hpp"

namespace ecosim::cli {

int trace(const Args& args) {
  po::options_description options("ecosim trace");
  options.add_options()("help,h", "this help")("output,o", po::value<std::string>(),
                                               "trace file to write (JSON Lines)");
  options.add(workload_options(Convention::exact));
  po::variables_map vm;
  if (!parse_args(args, options, vm,
                  "ecosim trace (--model NAME | --onnx FILE | --layer attention --seq N ...) -o FILE [options]",
                  variant_list_help()))
    return 0;
  if (!vm.count("output")) throw Error("give the trace file with -o FILE");
  reject_given(vm, {"kv-dtype", "weight-dtype"},
               "count of a decoder (its kv_cache_bytes, kv_read_bytes and weight_read_bytes); a trace's records carry "
               "every operand as computed, and replay costs each at the hardware's own precision");
  const Workload w = parse_workload(vm);
  const std::string path = vm["output"].as<std::string>();
  trace::TraceWriter writer(path,
                            {trace::kFormatVersion, "ecosim " ECOSIM_VERSION " trace", w.convention, w.describe()});
  w.emit_records(writer);
  writer.finish();
  if (path != "-") fmt::print(stderr, "wrote {}\n", path);
  return 0;
}

}  // namespace ecosim::cli
