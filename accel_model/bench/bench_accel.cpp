// Benchmark of the accelerator replay: wall time of the SystemC model and of the closed-form model on the
// given traces, unfused and with fused attention (a "+fused" row when the trace has softmax-attention groups),
// simulated MACs per wall-second, and the SystemC / closed-form time ratio (same run).
// Usage: bench_accel TRACE.jsonl...   (scripts/bench_accel generates the traces and runs this)
#include <chrono>
#include <filesystem>
#include <fmt/core.h>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/traces/trace.hpp"

namespace {

template <class F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Plans and replays `ops` with both models and prints one row; no row (false) for a fused mapping that
/// fused nothing.
bool bench(const std::string& label, const std::vector<ecosim::OpRecord>& ops, const ecosim::accel::AccelConfig& config,
           const ecosim::TechTable& tech) {
  using namespace ecosim;
  std::vector<accel::OpPlan> plans;
  const double plan_s = seconds([&] { plans = accel::plan_ops(ops, config, tech); });
  if (config.fuse_attention && plans.size() == ops.size()) return false;  // nothing fused
  accel::ReplayResult sc, closed;
  const double sc_s = seconds([&] { sc = accel::replay_systemc(plans, config); });
  const double closed_s = seconds([&] { closed = accel::replay_closed_form(plans, config); });
  fmt::print("{:<34} {:>7} {:>9} {:>10.4f} {:>10.4f} {:>10.5f} {:>12.0f} {:>9.1f}\n", label, ops.size(),
             sc.total.tiles, plan_s, sc_s, closed_s, double(sc.total.macs) / (plan_s + sc_s) / 1e6, sc_s / closed_s);
  fmt::print("  total replay (plan + SystemC) {:.3f} s; simulated {:.3f} ms, {} cycles (closed form {})\n",
             plan_s + sc_s, sc.latency_ms(), sc.total.cycles, closed.total.cycles);
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
    fmt::print("{:<34} {:>7} {:>9} {:>10} {:>10} {:>10} {:>12} {:>9}\n", "trace", "ops", "tiles", "plan_s",
               "systemc_s", "closed_s", "MMAC/wall-s", "sc/closed");
    for (int i = 1; i < argc; ++i) {
      const trace::Trace t = trace::read_file(argv[i]);
      const std::string name = std::filesystem::path(argv[i]).filename().string();
      bench(name, t.ops, unfused, tech);
      bench(name + " +fused", t.ops, fused, tech);
    }
  } catch (const Error& e) {
    fmt::print(stderr, "bench_accel: error: {}\n", e.what());
    return 2;
  }
  return 0;
}
