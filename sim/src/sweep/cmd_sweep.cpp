// `ecosim sweep [SPEC.json] --out DIR`: the design-space sweep — every point of a spec (accelerator axes ×
// workloads × variants; the built-in default without a spec) replayed on a pool of threads, with progress and
// ETA on stderr; sweep.csv (checkpointed as points finish, so --resume can skip what a killed run finished),
// sweep.json, and the latency/energy/area plots with their Pareto fronts.
#include <fmt/core.h>
#include <fmt/ostream.h>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <thread>

#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/input_files.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/text_file.hpp"
#include "ecosim/sim/commands.hpp"
#include "ecosim/traces/atomic_file.hpp"
#include "embedded_texts.hpp"
#include "plot_script.hpp"
#include "provenance.hpp"
#include "report_folder.hpp"
#include "sweep_inputs.hpp"
#include "sweep_mpi.hpp"
#include "sweep_report.hpp"
#include "sweep_runner.hpp"
#include "sweep_spec.hpp"
#include "workload.hpp"

namespace ecosim::cli {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kProgressInterval = std::chrono::seconds(1);
constexpr auto kCheckpointInterval = std::chrono::seconds(5);
constexpr std::uint64_t kMaxJobs = 1024;  // threads; more is a typo, not a machine

std::string duration(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

/// The plots (scripts/plot_sweep.py, run_plot_script); a failure is a warning (sweep.csv and sweep.json are
/// complete).
void plot(const std::string& dir) {
  const ProgramRun run =
      run_plot_script("plot_sweep.py", embedded::plot_sweep_py(),
                      {dir + "/sweep.json", dir + "/sweep_latency_energy.png", dir + "/sweep_energy_area.png"});
  if (run.succeeded)
    fmt::print(stderr, "wrote {0}/sweep_latency_energy.png and {0}/sweep_energy_area.png\n", dir);
  else
    fmt::print(stderr, "warning: no plots written ({}; is python3-matplotlib installed?); CSV and JSON are complete\n",
               run.failure);
}

/// Rank 0 (the only rank without mpirun): plans, runs the points or hands them out, writes the outputs.
int coordinate(const po::variables_map& vm, const SweepSpec& spec, const MpiSession& mpi) {
  const std::uint64_t jobs = positive(vm, "jobs");
  if (jobs > kMaxJobs) throw Error(fmt::format("--jobs {} is above the limit of {} threads", jobs, kMaxJobs));
  const std::string out = vm["out"].as<std::string>();
  const std::string csv_path = out + "/sweep.csv";
  ReportFolder folder(out);  // checked before any work
  const std::string report_path = out + "/sweep.json";
  for (const std::string& file : {csv_path, report_path, sweep_inputs_path(out)})  // (AtomicFile: at the end)
    if (is_input_file(file)) throw Error(fmt::format("the spec is {}, which the sweep writes", file));
  std::map<std::size_t, SweepRow> rows;
  if (vm.count("resume") && std::filesystem::exists(csv_path))
    rows = read_sweep_csv(read_text_file(csv_path, max_sweep_csv_bytes(spec)), spec, csv_path);
  // an error row runs again: a --max-minutes refusal under a raised limit, a failure that was the machine's
  const std::size_t retried = std::erase_if(rows, [](const auto& row) { return !row.second.ran; });
  const SweepPlan plan(spec, {.max_seconds = parse_max_seconds(vm)});
  std::vector<std::size_t> todo;
  for (std::size_t index : plan.runnable()) {
    const auto kept = rows.find(index);
    if (kept == rows.end())
      todo.push_back(index);
    else if (kept->second.point != plan.point(index))
      throw Error(
          fmt::format("{}: row of point {} does not match this spec (written by another spec?)", csv_path, index));
  }
  if (rows.size() + todo.size() != plan.runnable().size())
    throw Error(csv_path + ": it holds points this spec prunes (written by another spec?)");
  const nlohmann::json inputs = sweep_inputs(spec);
  if (!rows.empty()) check_sweep_inputs(out, inputs);  // rows are kept only for the same inputs
  if (const std::size_t extrapolated = plan.cost_warnings()["configurations"]; extrapolated)
    fmt::print(stderr,
               "warning: {} configuration(s) with bank sizes outside the CACTI table, costs extrapolated "
               "(first: {})\n",
               extrapolated, plan.cost_warnings()["first"].get<std::string>());
  if (spec.engine == accel::Engine::closed_form)
    for (const SweepAxis& axis : spec.axes)
      if (axis.key == "memory" || axis.key.starts_with("memory.")) {
        fmt::print(stderr,
                   "note: the closed-form engine times a DRAM device's transfers at their lower bound (its peak "
                   "bandwidth after one access latency; no bank, row or refresh timing): devices differ by "
                   "bandwidth alone, address mappings not at all — \"engine\": \"systemc\" times them\n");
        break;
      }
  folder.create();
  folder.keep();  // checkpoints stay: --resume continues from them
  // the rows on disk are these inputs' from now on: a run that starts afresh empties an earlier run's sweep.csv
  // first (stopped before its first checkpoint, it left the old rows beside the new inputs, which --resume kept)
  if (rows.empty()) write_file_atomically(csv_path, render_sweep_csv(spec, rows));
  write_file_atomically(sweep_inputs_path(out), inputs.dump(2) + "\n");
  fmt::print(stderr, "sweep: {} points ({} pruned, {} kept from {}{}), {} to run on {}, {} engine\n", spec.points(),
             plan.pruned()["points"].get<std::size_t>(), rows.size(), csv_path,
             retried ? fmt::format(", its {} error rows run again", retried) : "", todo.size(),
             mpi.size() > 1 ? fmt::format("{} MPI ranks", mpi.size()) : fmt::format("{} thread(s)", jobs),
             accel::name(spec.engine));

  const auto start = Clock::now();
  auto last_progress = start, last_checkpoint = start;
  Clock::duration checkpoint_interval = kCheckpointInterval;
  std::size_t finished = 0;
  const auto done = [&](SweepRow row) {
    rows[row.index] = std::move(row);
    ++finished;
    const auto now = Clock::now();
    if (now - last_progress >= kProgressInterval) {
      const double elapsed = std::chrono::duration<double>(now - start).count();
      const double rate = double(finished) / elapsed;
      fmt::print(stderr, "sweep: {}/{} points, {:.0f} points/s, ETA {}\n", finished, todo.size(), rate,
                 duration(double(todo.size() - finished) / rate));
      last_progress = now;
    }
    if (now - last_checkpoint >= checkpoint_interval) {
      write_file_atomically(csv_path, render_sweep_csv(spec, rows));
      // counted from the write's end, and at least ten writes long: a checkpoint takes at most a tenth of the
      // sweep's time however large its CSV grows (not one rewrite a row once a write outlasts the interval)
      last_checkpoint = Clock::now();
      checkpoint_interval = std::max<Clock::duration>(kCheckpointInterval, 10 * (last_checkpoint - now));
    }
  };
  if (mpi.size() > 1)
    gather_points(mpi, plan, todo, done, spec);
  else
    run_points(plan, todo, static_cast<unsigned>(jobs), done);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  write_file_atomically(csv_path, render_sweep_csv(spec, rows));
  nlohmann::ordered_json report =
      sweep_json(spec, rows, plan.pruned(), provenance(plan.base(), spec.engine, TechTable::builtin_45nm()));
  report["cost_warnings"] = plan.cost_warnings();
  write_file_atomically(report_path, report.dump(2) + "\n");
  std::size_t errors = 0;
  for (const auto& [index, row] : rows) errors += row.ran ? 0 : 1;
  fmt::print(stderr, "sweep: {} points in {:.3f} s ({:.0f} points/s); wrote {}/sweep.csv and {}/sweep.json\n",
             todo.size(), elapsed, elapsed > 0 ? double(todo.size()) / elapsed : 0.0, out, out);
  plot(out);
  fmt::print(std::cout, "{} points: {} rows ({} with an error), {} pruned; results in {}/\n", spec.points(),
             rows.size(), errors, plan.pruned()["points"].get<std::size_t>(), out);
  return 0;
}

}  // namespace

int sweep(const Args& args) {
  po::options_description options("ecosim sweep");
  options.add_options()("help,h", "this help")("spec", po::value<std::string>(),
                                               "sweep spec JSON (also the first argument; default: the built-in)")(
      "out", po::value<std::string>()->default_value("sweep"), "output directory")(
      "jobs,j", po::value<std::int64_t>()->default_value(std::max(1u, std::thread::hardware_concurrency())),
      "threads running points (one process; under mpirun each rank replays one point at a time)")(
      "resume", "keep the rows of DIR/sweep.csv and run only the missing points (and its error rows again)");
  options.add(time_limit_options());  // per point: one estimated longer is an error row
  po::variables_map vm;
  if (!parse_args(
          leading_argument_as(args, "spec"), options, vm,
          "ecosim sweep [SPEC.json] [--out sweep/] [--jobs N] [--resume] [--max-minutes M]   (spec format: README.md, "
          "\"Design-space sweep\"); mpirun -np N ecosim sweep ... distributes the points"))
    return 0;
  const MpiSession mpi;
  try {
    if (vm.count("spec")) remember_input_file(vm["spec"].as<std::string>());
    const SweepSpec spec = vm.count("spec")
                               ? parse_sweep_spec(read_text_file(vm["spec"].as<std::string>(), kMaxJsonDocumentBytes),
                                                  vm["spec"].as<std::string>())
                               : default_sweep_spec();
    if (mpi.rank() == 0) return coordinate(vm, spec, mpi);
    serve_points(SweepPlan(spec, {.max_seconds = parse_max_seconds(vm)}));  // rank 0's plan, from the same spec
    return 0;
  } catch (const std::exception& e) {
    if (mpi.size() == 1) throw;
    fmt::print(stderr, "ecosim sweep (MPI rank {}): error: {}\n", mpi.rank(), e.what());
    mpi.abort(2);  // the other ranks would wait for this one forever
  }
}

}  // namespace ecosim::cli
