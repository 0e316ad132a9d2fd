// Benchmark of the accelerator replay: wall time of the SystemC model and of the closed-form model on the
// given traces, unfused and (unless --unfused) with fused attention (a "+fused" row when the trace has
// softmax-attention groups): microseconds per tile and simulated MACs per wall-second of each engine, the
// SystemC / closed-form time ratio (same run) and the process's peak resident memory after the row (traces
// given in increasing size show whether it stays flat); and the simulated cycles of SystemC with its dynamic
// effects (overlap, prefetch), without them (= the serial pipeline) and of the closed-form lower bound. The
// benchmark traces are small and read whole; ecosim replay streams. SystemC fast-forwards steady runs of alike
// tiles (systemc.fast_forward); the column "walked" counts the tiles it walked one by one, and with --walk the
// same replay walking every tile is timed too (its ratio to the fast-forwarded one, same run; its cycles must be
// equal, checked).
// Usage: bench_accel [--unfused] [--walk] TRACE.jsonl...   (scripts/bench_accel makes the traces and runs this)
#include <fmt/core.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/traces/trace.hpp"
#include "peak_rss.hpp"

using ecosim::benchmarks::peak_rss_mib;

namespace {

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Plans and replays `ops` with both models and prints one row; no row (false) for a fused mapping that
/// fused nothing. Plans are made as the replay pulls them, tiles as it walks them: plan_s times the planning
/// alone (tiling choices), and the replay times include it and the tile generation.
bool bench(const std::string& label, ecosim::Convention convention, const std::vector<ecosim::OpRecord>& ops,
           const ecosim::accel::AccelConfig& config, const ecosim::TechTable& tech, bool walk) {
  using namespace ecosim;
  std::size_t plan_count = 0;
  const double plan_s = seconds([&] {
    RecordList records(ops);
    accel::PlanSource plans(records, convention, label, config, tech);
    for (accel::OpPlan plan; plans.next(plan);) ++plan_count;
  });
  if (config.fuse_attention && plan_count == ops.size()) return false;  // nothing fused
  accel::ReplayResult sc, closed;
  accel::ReplayWork walked;
  const double sc_s = seconds([&] {
    RecordList records(ops);
    accel::PlanSource plans(records, convention, label, config, tech);
    sc = accel::replay_systemc(plans, config, nullptr, nullptr, [&](const accel::ReplayWork& done) { walked = done; });
  });
  const double closed_s = seconds([&] {
    RecordList records(ops);
    accel::PlanSource plans(records, convention, label, config, tech);
    closed = accel::replay_closed_form(plans, config);
  });
  const double tiles = double(sc.total.tiles), macs = double(sc.total.macs);
  fmt::print("{:<34} {:>11} {:>10} {:>8.4f} {:>10.4f} {:>10.5f} {:>7.3f} {:>7.4f} {:>9.0f} {:>10.0f} {:>7.1f} {:>7.0f}\n",
             label, sc.total.tiles, walked.walked_tiles, plan_s, sc_s, closed_s,
             sc_s / double(std::max<std::uint64_t>(walked.walked_tiles, 1)) * 1e6, closed_s / tiles * 1e6,
             macs / sc_s / 1e6, macs / closed_s / 1e6, sc_s / closed_s, peak_rss_mib());
  if (walk) {
    accel::AccelConfig walking = config;
    walking.fast_forward = false;
    accel::ReplayResult every;
    const double walk_s = seconds([&] {
      RecordList records(ops);
      accel::PlanSource plans(records, convention, label, walking, tech);
      every = accel::replay_systemc(plans, walking);
    });
    if (every.total.cycles != sc.total.cycles) throw Error(label + ": fast-forward changed the cycles");
    fmt::print("  walking every tile: {:.3f} s, {:.1f}× the fast-forwarded replay, same cycles\n", walk_s,
               walk_s / sc_s);
  }
  accel::AccelConfig serial_config = config;
  serial_config.overlap_units = serial_config.prefetch_weights = false;
  RecordList records(ops);
  accel::PlanSource plans(records, convention, label, serial_config, tech);
  const accel::ReplayResult serial = accel::replay_systemc(plans, serial_config);
  fmt::print(
      "  simulated {:.3f} ms, {} cycles; without overlap and prefetch {} ({:.4f}×); closed-form bound {} "
      "(SystemC / closed form {:.4f})\n",
      sc.latency_ms(), sc.total.cycles, serial.total.cycles, double(sc.total.cycles) / double(serial.total.cycles),
      closed.total.cycles, double(sc.total.cycles) / double(closed.total.cycles));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ecosim;
  try {
    const accel::AccelConfig unfused = accel::builtin_config("bitfusion-45nm");
    accel::AccelConfig fused = unfused;
    fused.fuse_attention = true;
    const TechTable tech = TechTable::builtin_45nm();
    fmt::print("{:<34} {:>11} {:>10} {:>8} {:>10} {:>10} {:>7} {:>7} {:>9} {:>10} {:>7} {:>7}\n", "trace", "tiles",
               "walked", "plan_s", "systemc_s", "closed_s", "sc_us/w", "cf_us/t", "sc_MMAC/s", "cf_MMAC/s", "sc/cf",
               "rss_MiB");
    bool with_fused = true, walk = false;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; ++first) {
      if (std::strcmp(argv[first], "--unfused") == 0)
        with_fused = false;
      else if (std::strcmp(argv[first], "--walk") == 0)
        walk = true;
      else
        throw Error(std::string("unknown option ") + argv[first] + " (--unfused, --walk)");
    }
    for (int i = first; i < argc; ++i) {
      const trace::Trace t = trace::read_file(argv[i]);
      const std::string name = std::filesystem::path(argv[i]).filename().string();
      bench(name, t.header.convention, t.ops, unfused, tech, walk);
      if (with_fused) bench(name + " +fused", t.header.convention, t.ops, fused, tech, walk);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "bench_accel: error: {}\n", e.what());
    return 2;
  }
  return 0;
}
