// Internal: estimates of the memory and time heavy work will need, checked before it starts. Work estimated
// above a limit is refused with a message naming the option that raises it: --max-memory-gb (default half
// of this machine's RAM) and --max-minutes (default 60; time from the rates in sim/data/work_estimates.json).
#pragma once
#include <boost/program_options.hpp>
#include <cstdint>
#include <functional>
#include <string_view>

#include "ecosim/accel_model/op_plan.hpp"
#include "ecosim/ops_counter/attention.hpp"

namespace ecosim::cli {

struct WorkLimits {
  double max_memory_bytes = 0;
  double max_seconds = 0;
};

/// --max-memory-gb and --max-minutes.
boost::program_options::options_description work_limit_options();
/// --max-memory-gb alone (work whose time is not estimated: one tensor compressed).
boost::program_options::options_description memory_limit_options();
/// --max-minutes alone (work whose memory is not estimated: a sweep's points), and its value (or default) in s.
boost::program_options::options_description time_limit_options();
double parse_max_seconds(const boost::program_options::variables_map& vm);
/// The limits given, or their defaults; throws ecosim::Error for a non-positive value.
WorkLimits parse_work_limits(const boost::program_options::variables_map& vm);

/// Throws ecosim::Error when `bytes` exceeds the memory limit; `what` names the work ("ecoformer kernel").
void check_memory(const WorkLimits& limits, double bytes, std::string_view what);
/// Throws ecosim::Error when `ops` counted operations on the CPU references would exceed the time limit.
void check_cpu_time(const WorkLimits& limits, double ops, std::string_view what);

/// Seconds a SystemC replay of `tiles` tiles is expected to take: the typical per-tile cost measured by
/// scripts/bench_accel (sim/data/work_estimates.json), not the optimistic rate the limit uses.
double typical_systemc_seconds(double tiles);

/// A PlanSource check that adds up the tiles of the plans handed out that a replay walks under `config` (the
/// SystemC engine's, accel::walked_tiles; the closed form walks fewer) and throws ecosim::Error, before an op
/// is replayed, when the replay so far would exceed the time limit.
std::function<void(const accel::OpPlan&)> replay_budget(const WorkLimits& limits, const accel::AccelConfig& config);
/// Checks one run of an attention kernel: memory = Q, K, V and the output (fp32) plus its largest
/// intermediate (the largest bytes written by one record of its exact count); time = its counted operations
/// (on the CPU only: `on_gpu` skips the time check).
void check_attention_kernel(const WorkLimits& limits, const AttentionConfig& config, bool on_gpu);

}  // namespace ecosim::cli
