// Memory and time limits for heavy work: options, defaults from the machine, and the checks.
#include "work_limits.hpp"

#include <unistd.h>

#include <fmt/core.h>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "ecosim/accel_model/replay.hpp"
#include "ecosim/ops_counter/error.hpp"
#include "ecosim/ops_counter/json_input.hpp"
#include "ecosim/ops_counter/json_reader.hpp"
#include "ecosim/ops_counter/op_record.hpp"
#include "embedded_texts.hpp"

namespace ecosim::cli {

namespace po = boost::program_options;

namespace {

constexpr double kGB = 1e9;
constexpr double kDefaultMinutes = 60;

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_bytes = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_bytes > 0 ? double(pages) * double(page_bytes) : 8 * kGB;
}

/// A rate (or a cost per unit of work) from sim/data/work_estimates.json, whose keys are checked.
double estimated_rate(const char* key) {
  constexpr const char* kOrigin = "builtin work_estimates.json";
  static const nlohmann::json rates = [&] {
    nlohmann::json doc = parse_json(embedded::work_estimates(), kOrigin);
    JsonReader(doc, kOrigin)
        .exact_keys({"description", "cpu_reference_ops_per_s", "replay_tiles_per_s", "systemc_replay_us_per_tile"});
    return doc;
  }();
  return JsonReader(rates, kOrigin).number(key, {1e-12, 1e18, ""});
}

double positive_option(const po::variables_map& vm, const char* key, double fallback) {
  if (!vm.count(key)) return fallback;
  const double v = vm[key].as<double>();
  if (!(v > 0) || v > 1e12) throw Error(fmt::format("--{} must be a positive number, got {}", key, v));
  return v;
}

/// The total operations and the largest single output of the records it sees.
struct WorkSink : OpSink {
  double ops = 0, largest_output_bytes = 0;
  void record(const OpRecord& op) override {
    for (OpKind k : kAllOpKinds) ops += double(op.counts.ops(k));
    largest_output_bytes = std::max(largest_output_bytes, double(op.counts.written_bytes()));
  }
};

}  // namespace

po::options_description time_limit_options() {
  po::options_description o("Limits on heavy work (checked before it starts)");
  o.add_options()("max-minutes", po::value<double>(), "refuse work estimated to take longer (default: 60)");
  return o;
}

po::options_description memory_limit_options() {
  po::options_description o("Limits on heavy work (checked before it starts)");
  o.add_options()("max-memory-gb", po::value<double>(),
                  "refuse work estimated to need more memory (default: half the RAM)");
  return o;
}

po::options_description work_limit_options() {
  po::options_description o = memory_limit_options();
  const po::options_description time = time_limit_options();  // kept alive: options() refers into it
  for (const auto& option : time.options()) o.add(option);
  return o;
}

double parse_max_seconds(const po::variables_map& vm) {
  return positive_option(vm, "max-minutes", kDefaultMinutes) * 60;
}

WorkLimits parse_work_limits(const po::variables_map& vm) {
  return {positive_option(vm, "max-memory-gb", physical_memory_bytes() / 2 / kGB) * kGB, parse_max_seconds(vm)};
}

void check_memory(const WorkLimits& limits, double bytes, std::string_view what) {
  if (bytes <= limits.max_memory_bytes) return;
  throw Error(
      fmt::format("{} needs about {:.3g} GB of memory, above the limit of {:.3g} GB; refused before "
                  "starting (raise the limit with --max-memory-gb {:.0f} if the machine can take it)",
                  what, bytes / kGB, limits.max_memory_bytes / kGB, bytes / kGB + 1));
}

void check_cpu_time(const WorkLimits& limits, double ops, std::string_view what) {
  const double seconds = ops / estimated_rate("cpu_reference_ops_per_s");
  if (seconds <= limits.max_seconds) return;
  throw Error(
      fmt::format("{} on the CPU reference is {:.3g} G operations, at least {:.2g} minutes; refused "
                  "before starting (raise the limit with --max-minutes {:.0f}, or run on a GPU)",
                  what, ops / 1e9, seconds / 60, seconds / 60 + 1));
}

double typical_systemc_seconds(double tiles) { return tiles * estimated_rate("systemc_replay_us_per_tile") * 1e-6; }

std::function<void(const accel::OpPlan&)> replay_budget(const WorkLimits& limits, const accel::AccelConfig& config) {
  return [limits, &config, walked = std::make_shared<accel::WalkedTilesMemo>(),
          tiles = 0.0](const accel::OpPlan& plan) mutable {
    tiles += double((*walked)(plan, config));
    const double seconds = tiles / estimated_rate("replay_tiles_per_s");
    if (seconds <= limits.max_seconds) return;
    throw Error(
        fmt::format("replaying up to op '{}' means walking {:.3g} accelerator tiles, at least {:.2g} minutes; "
                    "refused before replaying it (raise the limit with --max-minutes {:.0f})",
                    plan.name, tiles, seconds / 60, seconds / 60 + 1));
  };
}

void check_attention_kernel(const WorkLimits& limits, const AttentionConfig& config, bool on_gpu) {
  AttentionConfig core = config;
  core.projections = false;
  WorkSink work;
  emit_attention("estimate", core, Convention::exact, work);
  const double tensor_bytes =
      4.0 * double(config.batch) * double(config.heads) * double(config.seq) * double(config.head_dim) * sizeof(float);
  const std::string what = fmt::format("the {} kernel (B={} H={} N={} D={})", name(config.variant), config.batch,
                                       config.heads, config.seq, config.head_dim);
  check_memory(limits, tensor_bytes + work.largest_output_bytes, what);
  if (!on_gpu) check_cpu_time(limits, work.ops, what);
}

}  // namespace ecosim::cli
